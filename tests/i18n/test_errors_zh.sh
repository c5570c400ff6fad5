#!/bin/sh
# test_errors_zh.sh — the error messages in Chinese. TAP output.
#   sh tests/i18n/test_errors_zh.sh [path/to/attn]      (default ./attn)
# A sample from each place errors are made — the C core (attn_fail), the bindings (lt_error), the Lua
# library (errors.raisef), the command line (a bad option, --help) — prints in Chinese under --lang
# zh_CN and under LANG=zh_CN.UTF-8, in English otherwise, with the same arguments in both: the digits
# of the two messages, and every shape such as [2, 3], are the same in the same order. The catalogs
# themselves (every message translated) are tests/i18n/test_catalogs.sh's.
set -u
BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"
unset LANGUAGE LC_ALL LC_MESSAGES ATTN_LANG
export LANG=C.UTF-8
# the arguments of a message: its digits and its shapes, in order
args() { sed 's/^[^:]*:[0-9]*: //' "$1" | head -n 1 | grep -o '\[[0-9, ]*\]\|[0-9]\+' | tr '\n' ' '; }

# same_args NAME CODE EN ZH: CODE raises, in English a line with EN, in Chinese one with ZH, and the
# digits and shapes of the two are the same
same_args() {
    run -e "$2"
    cp "$ERR" "$TMP/en.err"
    check "$1: English by default" all status_is 1 -- err_matches "$3"
    run --lang zh_CN -e "$2"
    cp "$ERR" "$TMP/zh.err"
    check "$1: Chinese under --lang zh_CN" all status_is 1 -- err_matches "$4" -- sh -c "! grep -q -- '$3' '$ERR'"
    check "$1: the same arguments in both languages ($(args "$TMP/en.err"))" \
        test "$(args "$TMP/en.err")" = "$(args "$TMP/zh.err")"
}

same_args "the core (attn_fail): a product of mismatched shapes" 'torch.ones(2, 3):matmul(torch.ones(2, 5))' \
    'matmul: cannot multiply \[2, 3\] by \[2, 5\] (3 ≠ 2)' 'matmul: 无法把 \[2, 3\] 与 \[2, 5\] 相乘（3 ≠ 2）'
same_args "the core: a view that cannot hold the elements" 'torch.ones(2, 3):view(4)' \
    'view: shape \[4\] is invalid for input of size 6' 'view: 形状 \[4\] 对大小为 6 的输入'
same_args "the bindings (lt_error): a ragged nested table" 'torch.tensor({{1, 2}, {3}})' \
    'tensor: row 2 has 1 element, expected 2' 'tensor: 第 2 行有 1 个元素，应为 2 个'
same_args "the bindings: a dim out of range" 'torch.ones(2, 3):sum(5)' \
    'sum: dim 5 is out of range for a 2-D tensor' 'sum: dim 5 超出了 2 维张量的范围'
same_args "the Lua library (errors.raisef): a probability out of range" 'nn.Dropout(3)' \
    'Dropout: p must be a probability between 0 and 1, got 3' 'Dropout: p 必须是 0 到 1 之间的概率，实际是 3'
same_args "the Lua library: a layer given the wrong input" 'nn.Linear(3, 2)(torch.ones(4))' \
    'Linear: expected an input whose last dim is in_features = 3, got shape \[4\]' \
    'Linear: 输入的最后一维应为 in_features = 3，实际形状是 \[4\]'
same_args "the Lua library's argument checks (check.lua)" 'nn.Linear(0, 2)' \
    'must be a positive integer, got 0' '必须是正整数，实际是 0'
same_args "the Lua library: attention.trace's formats (its fail)" \
    'attention.trace{q = torch.ones(2, 3), k = torch.ones(2, 4), v = torch.ones(2, 3)}' \
    'attention.trace: q \[2, 3\] and k \[2, 4\] must have the same last dim d' \
    'attention.trace: q \[2, 3\] 和 k \[2, 4\] 的最后一维 d 必须相同'

LANG=zh_CN.UTF-8 run -e 'torch.ones(2, 3):matmul(torch.ones(2, 5))'
check "LANG=zh_CN.UTF-8: the core's errors in Chinese" err_matches '无法把 \[2, 3\] 与 \[2, 5\] 相乘'
run --lang zh_CN -e 'attn.lang("en"); torch.ones(2, 3):matmul(torch.ones(2, 5))'
check "attn.lang('en') switches the core's errors back to English" err_matches 'matmul: cannot multiply'
run -e 'attn.lang("zh_CN"); nn.Dropout(3)'
check "attn.lang('zh_CN') switches the library's errors to Chinese" err_matches 'Dropout: p 必须是'
cat >"$TMP/bad.lua" <<'LUA'
lesson.title("bad", {source = "none"})
lesson.step("a product", function() torch.ones(2, 3):matmul(torch.ones(2, 5)) end)
LUA
run --lang zh_CN --check "$TMP/bad.lua"
check "--check in Chinese: a lesson's core error is reported in Chinese" all status_is 1 -- out_matches '无法把 \[2, 3\] 与 \[2, 5\] 相乘'

cat >"$TMP/fails.lua" <<'LUA'
lesson.title("fails", {source = "none"})
lesson.step("a check", function() lesson.check("two", 1 + 1, 3) end)
LUA
run --lang zh_CN --check "$TMP/fails.lua"
check "--check's report of a failed check in Chinese, the summary line as in English" all status_is 1 -- \
    out_matches '^    期望      3$' -- out_matches '^    实际      2$' -- out_matches '不相等（给出 {tol = ...} 可在容差内比较）' -- \
    out_matches '^0 passed, 1 failed$'
printf '# n\n\n```lua\nprint(1 + 1)\n```\n\n```output\n3\n```\n\n```lua\nerror("boom")\n```\n' >"$TMP/n.md"
run --lang zh_CN --verify "$TMP/n.md"
check "--verify's report in Chinese, the carets under the numbers that differ" all status_is 1 -- \
    out_matches '输出与 ```output 代码块不同（第 3 行的 ```lua 代码块）' -- out_matches '^    期望      3$' -- \
    out_matches '^              \^$' -- out_matches '最大差值 1.0e+00，在第 8 行：打印出 2，笔记中是 3（允许 ±0.5）' -- \
    out_matches '第 11 行的 ```lua 代码块出错：boom' -- out_matches '^1 passed, 2 failed$\|^0 passed, 2 failed$'
run --verify "$TMP/n.md"
check "--verify's report in English" all out_matches 'the output differs from the ```output block (the ```lua block at line 3)' -- \
    out_matches '^    expected  3$'

run --lang zh_CN --bogus
check "an unknown option in Chinese, the option as given" all status_is 1 -- err_matches "无法识别的选项 '--bogus'" -- err_matches '^用法：'
run --bogus
check "an unknown option in English" all status_is 1 -- err_matches "unrecognized option '--bogus'"
run --lang zh_CN --help
check "--help in Chinese, the options as they are" all status_is 0 -- out_matches '^用法：attn \[选项\]' -- out_matches '^  --check \[LESSON...\]  静默运行课程'
# the last line of --check and --verify is for tools and stays "N passed, N failed" in every language: the
# Chinese help says so, and says nothing a run does not print
check "--help in Chinese says --check and --verify end with \"N passed, N failed\", as they do" all \
    out_has "“N passed, N failed”" -- out_lacks "项通过"
run --lang zh_CN --check lessons/01_simple_attention.lua
check "--check in Chinese: the last line is \"N passed, N failed\"" last_line_is "26 passed, 0 failed"
LANG=zh_CN.UTF-8 run --help
check "LANG=zh_CN.UTF-8 --help: Chinese" out_matches '^用法：'
run --help
check "--help in English" out_matches '^usage: attn \[options\]'
run --lang zh_CN --from x --step lessons/01_simple_attention.lua
check "--from with no number, in Chinese" all status_is 1 -- err_matches "--from 需要一个步骤编号（1、2……），实际是 'x'"

same_args "autograd: a second backward through a freed graph (was English under zh_CN)" \
    'local x = torch.randn(3):requires_grad_(); local y = x:exp():sum(); y:backward(); y:backward()' \
    'Trying to backward through the graph a second time' '试图第二次沿计算图做反向传播'
same_args "autograd: a saved tensor changed in place (was half English under zh_CN)" \
    'local x = torch.randn(2, 3):requires_grad_(); local y = x:exp(); y:add_(1); y:sum():backward()' \
    'which is output 0 of ExpBackward0, is at version 1' '（第 0 个输出，来自 ExpBackward0） 的版本是 1'
same_args "optimizers: a non-leaf parameter" 'local w = torch.randn(3):requires_grad_(); torch.optim.SGD({w * 2}, {lr = 0.1})' \
    'SGD: params\[1\] is not a leaf tensor' 'SGD：params\[1\] 不是叶子张量'
run --lang zh_CN -e 'print(select(2, pcall(torch.set_rng_state, "x")))'
check "an error caught by pcall is the Chinese text" out_matches 'set_rng_state: 状态应为 [0-9]* 字节，实际是 1$'
tap_end

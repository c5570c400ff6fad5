#!/bin/sh
# test_examples.sh — every example of the robustness rule ("nothing a user types may crash, hang or silently lie"),
# each run as its own process: it must end with a Lua error naming the function (status 1, the message on
# stderr) or with the right result (status 0), within a time bound, never by a signal or a sanitizer
# report. The bound catches hangs, it is not a speed test: each example takes milliseconds.
#   sh tests/robust/test_examples.sh [path/to/attn [seconds]]     (default ./attn, 2 s)
set -u

BIN=${1:-./attn}
LIMIT=${2:-2}
. "$(dirname "$0")/../cmd.sh"

# attempt CODE: runs attn -e CODE under the time bound (killed when it is over).
attempt() {
    timeout -s KILL "$LIMIT" "$BIN" -e "$1" </dev/null >"$OUT" 2>"$ERR"
    STATUS=$?
}
clean_end() { # no signal (timeout's KILL is 137), no sanitizer report
    [ "$STATUS" -lt 128 ] && ! grep -q 'runtime error:\|AddressSanitizer\|LeakSanitizer' "$ERR"
}

# refused DESCRIPTION CODE MESSAGE: a Lua error whose message holds MESSAGE.
refused() {
    attempt "$2"
    check "$1" all clean_end -- status_is 1 -- err_has "$3"
}
# computes DESCRIPTION CODE OUTPUT: status 0, OUTPUT on stdout.
computes() {
    attempt "$2"
    check "$1" all clean_end -- status_is 0 -- out_has "$3"
}

# ---- sizes that overflow 64 bits --------------------------------------------------------------------
refused "a view whose element count wraps around is refused (was: a segfault)" \
    'x = torch.zeros(8):view(0x5555555555555558, 3); print(x[{6148914691236517208, 3}])' \
    '(command line):1: view: the shape [6148914691236517208, 3] is too large'
refused "narrow with start + length past int64 is refused" \
    'print(torch.zeros(4):narrow(1, 2, math.maxinteger))' \
    'narrow: 9223372036854775807 elements from element 2 are out of range for dim 1 of size 4'
refused "expand to sizes whose product wraps is refused (was: tensor(0.))" \
    'print(torch.ones(1):expand(2^32, 2^32):sum())' \
    'expand: cannot expand [1] to [4294967296, 4294967296]: the product of the sizes does not fit'
refused "torch.Size:numel() of sizes whose product wraps is refused (was: 0)" \
    'print(torch.Size{2^32, 2^32}:numel())' 'numel: the sizes of torch.Size([4294967296, 4294967296])'
computes "torch.Size:numel() with a 0 among huge sizes is 0" 'print(torch.Size{2^32, 2^32, 0}:numel())' 0
computes "expand to 2^62 elements that fit is a view" 'print(torch.ones(1):expand(2^31, 2^31):numel())' \
    4611686018427387904
refused "an empty tensor whose other sizes multiply past int64 is refused" \
    'print(torch.zeros(0, 2^62, 2^62))' 'zeros: the shape [0, 4611686018427387904, 4611686018427387904] is too large'
refused "cat whose joined size passes int64 is refused" \
    'print(torch.cat{torch.ones(1):expand(2^62), torch.ones(1):expand(2^62)})' 'cat: the joined tensor would be too large'
refused "zeros(2^62, 2^62) is more than the machine holds" 'print(torch.zeros(2^62, 2^62))' \
    'zeros: 2.13e37 elements'

# ---- in-place writes into overlapping memory (PyTorch refuses them) -----------------------------------
refused "add_ into an expanded view is refused (was: [3, 3, 3])" \
    'torch.zeros(1):expand(3):add_(torch.tensor{1, 2, 3})' \
    'add_: more than one element of the written-to tensor refers to a single memory location'
refused "copy_ into an expanded view is refused" 'torch.zeros(1):expand(3):copy_(torch.tensor{1, 2, 3})' \
    'copy_: more than one element'
refused "normal_ into an expanded view of 2^40 elements is refused at once" \
    'torch.zeros(1):expand(2^40):normal_()' 'normal_: more than one element'
refused "copy_ from a view sharing part of the destination is refused" \
    'x = torch.arange(5.0); x[{{1, 3}}]:copy_(x[{{2, 4}}])' 'copy_: some elements of the source'
refused "add_ of a matrix and its own transpose is refused" 'y = torch.rand(2, 2); y:add_(y.T)' \
    'add_: some elements of the source'
refused "assigning a view that shares part of the destination is refused" \
    'x = torch.arange(4.0); x[{{1, 3}}] = x[{{2, 4}}]' 'assign: some elements of the source'
computes "x:add_(x) (the same memory, read as it is written) is allowed" \
    'print(torch.arange(3.0):add_(torch.arange(3.0)), (function() local x = torch.arange(3.0); return x:add_(x) end)())' \
    'tensor([0., 2., 4.])	tensor([0., 2., 4.])'
computes "fill_ of an expanded view is allowed, as in PyTorch (every element gets the one value)" \
    'print(torch.zeros(1):expand(3):fill_(1))' 'tensor([1., 1., 1.])'
# masked_fill_ of an expanded view wrote through the shared element: {true, false} gave [2., 2.]. PyTorch
# 1.13 warns that this is deprecated and asks for clone(); attn refuses it
refused "masked_fill_ of an expanded view is refused (the unmasked element would change too)" \
    'x = torch.zeros(1):expand(2):masked_fill_(torch.tensor{true, false}, 2)' \
    '(command line):1: masked_fill_: more than one element of the written-to tensor refers to a single memory location'

# ---- errors name what the user called -----------------------------------------------------------------
refused "x:exp() on a huge view names exp (was: unary:)" 'x = torch.ones(1):expand(2^36); y = x:exp()' \
    '(command line):1: exp: 6.87e10 elements'
refused "x:contiguous() on a huge view names contiguous (was: clone:)" \
    'y = torch.ones(1, 1):expand(2^18, 2^18):contiguous()' '(command line):1: contiguous: 6.87e10 elements'
refused "torch.sin on a huge view names sin (was: to: / activation:)" 'y = torch.sin(torch.ones(1):expand(2^36))' \
    '(command line):1: sin: 6.87e10 elements'
refused "x:add_ with a bad argument names add_ (was: add:)" 'torch.ones(2):add_("x")' \
    '(command line):1: add_: expected tensors or numbers'
refused "nn.functional.linear names linear" 'nn.functional.linear(torch.rand(2, 3), torch.rand(4, 5))' \
    '(command line):1: linear: matmul: cannot multiply [2, 3] by [5, 4]'
refused "nn.positional_encoding says the position once" 'nn.positional_encoding(2^31, 2^31)' \
    '(command line):1: positional_encoding: arange: 2.15e9 elements'
refused "attention.heatmap with a bad range (was: attempt to compare number with string)" \
    'attention.heatmap(torch.rand(2, 2), {range = {"a", 1}})' \
    '(command line):1: attention.heatmap: range must be {low, high}, two numbers with low <= high, got {a, 1}'

# ---- the lesson library's checks on long digit strings (were quadratic: 46 s for 40000 digits) -----------
computes "lesson.check on two 40000-digit strings" \
    "lesson.check('digits', string.rep('1', 40000), string.rep('1', 39999) .. '2'); print('done')" 'done'

# ---- found by scripts/fuzz.sh (seed 2014) ---------------------------------------------------------------
refused "indexing a view of math.maxinteger rows at math.maxinteger (was: a signed overflow, UBSan)" \
    'x = torch.ones(1):expand(math.maxinteger); print(x[math.maxinteger], x[math.maxinteger + 1])' \
    'index: index -9223372036854775808 is out of range'

# ---- Hugging Face tokenizer files: what is not a tokenizer.json is refused by name ------------
refused "Tokenizer.from_file of a directory (opens, then cannot be read)" \
    'tokenizers.Tokenizer.from_file("/")' \
    '(command line):1: Tokenizer.from_file: cannot read / (is it a directory?)'
refused "Tokenizer.from_file of a device without an end is refused before it is read (core/safe_read.c)" \
    'tokenizers.Tokenizer.from_file("/dev/zero")' \
    'Tokenizer.from_file: cannot open /dev/zero: it is a character device, and attn reads only regular files'
refused "Tokenizer.from_str of JSON that is not a tokenizer" \
    'tokenizers.Tokenizer.from_str("[1, 2]")' \
    '(command line):1: Tokenizer.from_str: (string): not a tokenizer.json: not a JSON object'
refused "a Tokenizer method called with a dot" \
    'tokenizers.Tokenizer.encode("text")' \
    '(command line):1: Tokenizer:encode: call it with a colon: tok:encode(text)'

tap_end

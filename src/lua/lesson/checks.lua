-- checks.lua — what a lesson compares (module attn.lesson.checks, installed into the lesson table by
-- lesson/init.lua): lesson.check against the book's text or numbers or PyTorch's (lesson.reference),
-- lesson.agree between two routes attn took, lesson.data, and how each check's line is shown in each mode.
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local options = require("attn.options")
local compare = require("attn.lesson.compare")
local reference = require("attn.lesson.reference")
local i18n = require("attn.i18n")
local tr, trf = i18n.tr, i18n.trf

local checks = {}

-- install(lesson, I): I is lesson/init.lua's output: state() (the run in progress), mark, emit, write,
-- paint and check_string.
function checks.install(lesson, I)
    local mark, emit, write, paint, check_string = I.mark, I.emit, I.write, I.paint, I.check_string

    -- lesson.data(file) -> the path of a data file the lesson reads, lessons/data/<file> (reference.lua).
    function lesson.data(file) check_string("data", 1, file) local path = reference.data_path(file) return path end

    -- The tensors lesson.reference returned: the only tensors lesson.check takes as its expected side.
    local from_reference = setmetatable({}, {__mode = "k"})

    -- lesson.reference(file, name) -> the tensor named name in tests/data/torch/<file> (float32, or int64 for
    -- ids): what PyTorch computed (scripts/gen_lesson_reference.py), the expected side of a lesson's check.
    function lesson.reference(file, name)
        check_string("reference", 1, file)
        check_string("reference", 2, name)
        local r, path = reference.find(file, name)
        if not r then errors.raisef("lesson.reference: no tensor named %s in %s", name, path) end
        local t = torch.tensor(#r.values == 1 and #r.shape == 0 and r.values[1] or r.values)
        if #r.shape > 0 then t = t:view(table.unpack(r.shape)) end
        from_reference[t] = true
        return t
    end

    ---------------------------------------------------------------------------------------------------
    -- Checks
    ---------------------------------------------------------------------------------------------------

    -- One check's line: "✓ what" (a check) or "≡ what (largest difference ...)" (an identity, with
    -- `note`); "✗ what" and the explanation on a failure. pair: {computed, expected} (record mode).
    local function report_check(what, ok, lines, identity, note, pair)
        local S = I.state()
        if mark("check", {what = what, ok = ok, lines = lines or {}, identity = identity, note = note, pair = pair}) then
            return
        end
        local number = S.tap_first + S.passed + S.failed - 1
        if S.mode == "check" then
            local label = (S.name and S.name .. ": " or "") .. (identity and "≡ " or "") .. what
            if S.tap then
                emit(ok and "ok " or "not ok ", number, " - ", label, "\n")
                for _, l in ipairs(lines or {}) do
                    emit("#   ", (l:gsub("\n", "\n#   ")), "\n")
                end
            elseif not ok then
                emit("✗ ", label, "\n")
                for _, l in ipairs(lines) do emit("    ", (l:gsub("\n", "\n    ")), "\n") end
            end
            return
        end
        if ok and identity then
            -- TRANSLATORS: the note after an identity, in parentheses: " (largest difference ..., tolerance ...)"
            write("  ", paint("32", "≡"), " ", what, note and note ~= "" and paint("2", trf(" (%s)", note)) or "", "\n")
        elseif ok then
            write("  ", paint("32", "✓"), " ", what, "\n")
        else
            -- a failure shows even while skipping a section
            emit("  ", paint("1;31", "✗"), " ", what, "\n")
            for _, l in ipairs(lines) do emit("      ", (l:gsub("\n", "\n      ")), "\n") end
        end
    end

    -- lesson.check(what, computed, expected [, {tol = ...}]) -> true/false. See lesson/compare.lua.
    -- The expected side is the book's: its printed text, its numbers, or PyTorch's numbers read with
    -- lesson.reference. A tensor attn computed is refused: comparing two computations is lesson.agree.
    function lesson.check(what, computed, expected, opts)
        local S = I.state()
        check_string("check", 1, what)
        what = tr(what)
        if opts ~= nil and type(opts) ~= "table" then
            errors.raisef("lesson.check: argument 4 must be an options table such as {tol = 5e-5}, got %s", type(opts))
        end
        options.check("lesson.check", opts, {"tol"})
        if torch.is_tensor(expected) and not from_reference[expected] then
            errors.raise("lesson.check: the expected side is a tensor attn computed, not the book's text or numbers " ..
                  "or PyTorch's (lesson.reference): compare two computations with lesson.agree(what, a, b " ..
                  "[, {tol = ...}])")
        end
        local ok, lines = compare.check(computed, expected, opts)
        if ok then S.passed = S.passed + 1 else S.failed = S.failed + 1 end
        report_check(what, ok, lines, nil, nil, {computed, expected})
        return ok
    end

    -- lesson.agree(what, a, b [, {tol = ...}]) -> true/false: an identity, two routes attn took to one
    -- value (a loop and a matmul, a library class and the lesson's, -inf before softmax and masking
    -- after it), or a computed value and the value the lesson's own reasoning predicts. Not for the
    -- book's numbers (lesson.check). Counted like a check, and also in S.identities.
    function lesson.agree(what, a, b, opts)
        local S = I.state()
        check_string("agree", 1, what)
        what = tr(what)
        if opts ~= nil and type(opts) ~= "table" then
            errors.raisef("lesson.agree: argument 4 must be an options table such as {tol = 1e-6}, got %s", type(opts))
        end
        options.check("lesson.agree", opts, {"tol"})
        if a == nil or b == nil then
            errors.raisef("lesson.agree: needs two values to compare, got %s and %s", type(a), type(b))
        end
        local tol = opts and opts.tol or 0
        if type(tol) ~= "number" or tol < 0 or tol ~= tol then
            errors.raisef("lesson.agree: tol must be a number >= 0, got %s", tostring(tol))
        end
        local ok, note, lines = compare.agree(a, b, tol)
        if ok then S.passed = S.passed + 1 else S.failed = S.failed + 1 end
        S.identities = S.identities + 1
        report_check(what, ok, lines, true, note, {a, b})
        return ok
    end

    -- Called by the runner when a lesson stops with an error (at a line of the lesson, when known):
    -- one more failed check.
    function lesson.report_error(message, line)
        local S = I.state()
        S.failed = S.failed + 1
        report_check(line and trf("error at line %d: %s", line, message) or trf("error: %s", message), false, {})
    end
end

return checks

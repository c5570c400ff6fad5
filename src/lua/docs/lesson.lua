-- lesson.lua — help for the lesson library (lesson/init.lua): the functions a lesson in
-- lessons/*.lua is written with. Loaded by attn.docs (docs/init.lua). The examples wrap
-- their calls in lesson.capture, so that what the library prints is the example's result.

local D = require("attn.docs.define")
local def = D.def
local lesson = require("attn.lesson")

local function ldef(name, sig, doc, example)
    def("lesson." .. name, sig, doc, example, lesson[name])
end

def("lesson", "lesson", [=[
The library a lesson is written with. A lesson is a plain Lua script in lessons/NN_topic.lua that
rebuilds a book section's worked examples: lesson.title, then for each section lesson.section,
and before each step a paragraph lesson.say; each lesson.step runs a function whose source lines
are echoed first (a trailing "-- Python: ..." comment shows the book's line beside the Lua one);
inside it lesson.show prints values, lesson.check compares them with the book (or with PyTorch's
numbers, lesson.reference) and lesson.agree with another computation of attn's (an identity, such
as a loop and a matmul). Run a lesson
with ./attn lessons/X.lua (straight through), ./attn --step lessons/X.lua (Enter next, b back,
r repeat, g go to a step, l list the steps, s next section, c clear, ? keys, q quit; --from N starts
at step N, --clear puts each step on a screen of its own), ./attn --step=line lessons/X.lua (line
by line), ./attn --check lessons/*.lua (failures only, how many checks were identities, and
"N passed, N failed" last), ./attn --list, ./attn --markdown lessons/X.lua (a Markdown handout:
paragraphs, each step's code and output, its checks; ./attn --verify handout.md runs it again and
compares). Globals set in a step stay visible to later steps. Going
back runs the lesson again from its start without output (from the generator, dropout flavour
and print options it started with), so a lesson must compute the same every time it runs: nothing
from the clock, or from a file that changes.]=], [=[
lesson.capture(lesson.section, "3.3.1  A simple self-attention mechanism"):match("══ (.-) ═")
--> 3.3.1  A simple self-attention mechanism]=], lesson)

ldef("title", "lesson.title(text [, {source = ...}])", [=[
The lesson's title, printed first and underlined; source (such as "ch. 3 §3.3.1–3.3.2") says
which book section the lesson rebuilds. ./attn --list shows both.]=], [=[
lesson.capture(lesson.title, "Simple self-attention", {source = "ch. 3 §3.3.1"})
--> Simple self-attention
--> ━━━━━━━━━━━━━━━━━━━━━
--> ch. 3 §3.3.1]=])

ldef("section", "lesson.section(text)", [=[
A section header, numbered as in the book: "══ 3.3.1  A simple ... ═══". In --step mode, s (next
section) skips ahead to the next lesson.section.]=], [=[
lesson.capture(lesson.section, "3.3.2  All input tokens"):match("══ (.-) ═")
--> 3.3.2  All input tokens]=])

ldef("say", "lesson.say[[text]]", [=[
A paragraph for the reader: what the next step computes and why, in the book's notation (x^(i),
ω, α, z). Written as a long string; blank lines around it and its common indentation are dropped.]=], [=[
print(lesson.capture(lesson.say, "  The score ω2j is the dot product x^(2) · x^(j).  "))
-->
--> The score ω2j is the dot product x^(2) · x^(j).
-->]=])

ldef("step", "lesson.step(title, fn)", [=[
One step of a lesson: prints a header "── step 2/9 · title ───" (the count is of the steps in the
lesson's file), echoes fn's source lines (not the lesson.show, lesson.check and lesson.agree calls:
a check's expected side is the book's text, which a lesson does not print as its own), then calls
fn. In
--step mode it then waits for a key: Enter goes on, r runs the step again, s runs the rest of the
section without pausing or printing, q quits. Globals fn assigns stay for later steps.]=], [=[
out = lesson.capture(lesson.step, "scores", function() scores = inputs:matmul(inputs[2]) end)
out:match("step 1 · scores")   -- a step outside a lesson file: no count, no source to echo
--> step 1 · scores
scores                         -- inputs: see ?torch.tensor
--> tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])

ldef("show", "lesson.show(name, value)  or  lesson.show(value)", [=[
Prints a value as the REPL would (tensors as PyTorch prints them), after "name:" when a name is
given: on the same line for a one-line value, on a line of its own before a matrix. The book's
print("Sum:", x) is lesson.show("Sum", x).]=], [=[
lesson.capture(lesson.show, "Sum", torch.softmax(inputs[2], 1):sum())   -- inputs: see ?torch.tensor
--> Sum: tensor(1.)]=])

ldef("check", "lesson.check(what, computed, expected [, {tol = ...}])", [=[
Compares what attn computed with what the book printed, prints "✓ what" or "✗ what" and returns
true or false. The expected side is the book's (or PyTorch's), never attn's: the book's printed
text, compared character for character with attn's print of computed (on a failure the numbers
read from both texts give the largest difference and its index); or the book's numbers, a number
or nested table of numbers, compared within the absolute tolerance tol, which must be given for a
table (a single number without tol must be equal); or a tensor from lesson.reference (PyTorch's
numbers), compared like a table within tol; or a boolean, for plain equality. Any other tensor as
the expected side is an error that points to lesson.agree, which compares two computations. On a
failure it also prints the expected and the computed values. In --check mode only failures are
printed.]=], [==[
w = torch.softmax(inputs:matmul(inputs[2]), 1)   -- inputs: see ?torch.tensor
lesson.capture(lesson.check, "α2 (In [7])", w, [=[tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])]=])
-->   ✓ α2 (In [7])
print(lesson.capture(lesson.check, "sum", w:sum(), 1.5, {tol = 1e-6}))
-->   ✗ sum
-->       expected  1.5
-->       got       tensor(1.)
-->       largest difference 5.0e-01, tolerance 1e-06
--> ]==])

ldef("agree", "lesson.agree(what, a, b [, {tol = ...}])", [=[
An identity: two computations of attn's that must give the same value, such as a loop and a
matmul, a library class and the lesson's own, masking with -inf before softmax and renormalising
after it; or a computed value and the value the lesson's own reasoning predicts (a row of softmax
weights sums to 1, a refused call returns false). Not for the book's numbers: those are
lesson.check's. a and b are tensors, numbers, booleans, strings, torch.Size, nested tables of
numbers or booleans, or lists of any of these; they must have the same shape and agree element by
element within the absolute tolerance tol (default 0: exactly; nan equals nan). Prints "≡ what"
with the largest difference and tol ("exact" when there is none), or "✗ what" with a, b and where
they differ most; returns true or false. It counts as a check in --check (a failed identity fails
the run), and the summary says how many of the checks were identities.]=], [=[
lesson.capture(lesson.agree, "Xᵀᵀ = X", inputs.T.T, inputs)   -- inputs: see ?torch.tensor
-->   ≡ Xᵀᵀ = X (exact)
lesson.capture(lesson.agree, "3X / 3 = X", inputs * 3 / 3, inputs, {tol = 1e-7})
-->   ≡ 3X / 3 = X (largest difference 5.96e-08, tolerance 1e-07)]=])

ldef("reference", "lesson.reference(file, name)", [=[
A tensor PyTorch computed, for the expected side of a check: the float32 tensor named name in
tests/data/torch/<file> (found beside the lesson's lessons/ folder, else under the current
directory). Each line of such a file is "tensor name=N shape=2,3 : 0x3f800000 ...", the values as
float32 bit patterns, written by a script under scripts/ that runs the lesson's seeded computations
in PyTorch (scripts/gen_lesson_reference.py for lessons 11 and 12). So a lesson's check compares
attn with PyTorch, not with attn itself: lesson.check("LayerNorm", y, lesson.reference(file,
"blocks.ln"), {tol = 1e-5}). Only the tensor lesson.reference returns is taken as a check's expected
side; a tensor made from it (a view, a slice) is attn's own.]=], [=[
scores = lesson.reference("lessons_pdl_ch7.txt", "attention.scores")   -- lesson 11's Q·Kᵀ, by PyTorch
scores.shape
--> torch.Size([3, 5])]=])

ldef("data", "lesson.data(file)", [=[
The path of a data file a lesson reads, such as the short story chapter 5 trains on: data/<file>
beside the lesson's own file (lessons/data in a checkout, share/attn/lessons/data once installed),
else the folder $ATTN_LESSON_DATA (for a lesson's code run where its file is unknown, such as a
notebook's cells), else lessons/data/<file> under the current directory. An error names the places
it looked in when none has the file. lessons/data/README.md says where each file comes from.]=], [=[
path = lesson.data("the-verdict.txt")             -- chapter 5's "The Verdict" (Edith Wharton, 1908)
#assert(io.open(path)):read("a")
--> 20479]=])

ldef("needs", "lesson.needs{name, ...}", [=[
The files a lesson needs from here on that attn does not ship, one line outside the steps, so that
the steps show the book's code only: "gpt2 vocabulary" (tiktoken.get_encoding("gpt2")), "qwen3
tokenizer" (tokenizers.Tokenizer.from_pretrained("Qwen/Qwen3-0.6B")), "gpt2" (GPT-2 small's weights,
gpt.GPTModel.from_pretrained("gpt2")) and "Qwen/Qwen3-0.6B" (its weights). When one is missing the
lesson ends there, as lesson.skip ends it: the loader's message says where attn looked and the
command that gets the files, and --check counts the lesson as skipped. make run and make test fetch
the first two into build/ beside attn, where attn looks.]=], [=[
lesson.needs{"gpt2 vocabulary", "qwen3 tokenizer"}   -- lesson 23, before its first step]=])

ldef("printf", "lesson.printf(fmt, ...)", [=[
A line of the lesson's own text with the numbers it computed: fmt translated (the lesson's catalog),
then formatted as string.format does, then printed as the lesson's print prints (nothing in --check
mode). For a sentence with numbers inside a step, where print(lesson.tr(fmt, ...)) would show the
translating on the projector.]=], [=[
lesson.capture(lesson.printf, "parameters: %d", 1194)
--> parameters: 1194]=])

ldef("heatmaps", "lesson.heatmaps{{title, t [, opts]}, ...}", [=[
Draws matrices with attention.heatmap (opts as there: rows, cols, range, ...), each under its
title, next to each other when they fit in lesson.width (80) columns, else one below the other:
for patterns a lesson compares, such as a bidirectional and a causal mask. Like lesson.show it only
displays, so a step's echo leaves it out, and it prints nothing in --check mode.

lesson.heatmaps(list, {frames = title}): the matrices are frames of one picture changing, such as
attention weights at training checkpoints (lesson 20). The terminal prints the title, then the
matrices as above; the web page (--html) shows one frame at a time, with a slider to move through
them.]=], [=[
print(lesson.capture(lesson.heatmaps, {{"causal", torch.tril(torch.ones(2, 2)), {range = {0, 1}}},
                                       {"all", torch.ones(2, 2), {range = {0, 1}}}}))
--> causal      all
--> 1.█  0.     1.█  1.█
--> 1.█  1.█    1.█  1.█
-->]=])

ldef("tr", "lesson.tr(msgid [, ...])", [=[
The translation of msgid in the language of attn's text (attn.lang), formatted with string.format
and the other arguments when there are any; msgid itself in English or when there is no translation.
For a lesson's own text that is not the text argument of lesson.say, step, check, show and the rest,
which translate theirs: a check's label with a computed number, lesson.check(lesson.tr("step %d's
weights", i), ...), a heatmap's title, a value shown with words in it. Text with numbers is always
formatted this way, never with string.format first, so that the catalogs hold the format
(lessons/README.md).]=], [=[
lesson.tr("head %d", 2)
--> head 2]=])

ldef("capture", "lesson.capture(fn, ...)", [=[
Runs fn(...) and returns, as a string, what the lesson library printed meanwhile (without colour)
instead of printing it. For tests, and for these examples.]=], [=[
lesson.capture(lesson.show, torch.ones(2))
--> tensor([1., 1.])]=])

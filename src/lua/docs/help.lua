-- help.lua — help for help itself (module attn.docs.help; see docs/init.lua for how an entry is
-- written).

local D = require("attn.docs.define")
local def = D.def
local help = require("attn.help")

def("help", "help([x])", [=[
help() prints a tour of attn. help(x) prints the signature, a paragraph and an example for x,
given either as a value (help(torch.softmax), help(nn.Linear), help(x.view)) or as a name
(help("torch.softmax"), help("Tensor:view"), help("Tensor.shape")). At the prompt, ?name is
the same as help("name"), and ?x:view works for any tensor x. help(torch) or help(nn) lists what
is documented in the table. help("Tensor") describes tensors and lists their methods.]=], [=[
help.text(torch.softmax):match("^[^\n]*")
--> torch.softmax(x, dim)  or  x:softmax(dim)]=], help)

def("help.text", "help.text([x])", [=[
Returns what help(x) prints, as a string without the final newline (help.text() is the tour).
Useful in tests and lesson scripts.]=], [=[
help.text("no.such.thing")
--> no help for no.such.thing; try help() for a tour]=], help.text)

def("attn.lang", "attn.lang([name])", [=[
The language of attn's text (lesson prose, titles and labels, help, the REPL's banner and hints):
attn.lang() says which, attn.lang("zh_CN") switches to Chinese and attn.lang("en") back to English.
At start it is chosen as gettext programs choose it, from LANGUAGE, LC_ALL, LC_MESSAGES and LANG
(LANG=zh_CN.UTF-8 is Chinese), or by ./attn --lang zh_CN. Code, tensors and error messages stay as
they are in every language. ?glossary lists the terms in English and in Chinese.]=], [=[
attn.lang()
--> en]=], attn and attn.lang)

def("help.example_comments", "help.example_comments(example)", [=[
The comments of an example's lines of code, each the text after "-- " (not the "-->" lines, which
are what the code prints). help shows them translated in a language other than English, and
scripts/po-docs.lua puts them in the translators' templates (lessons/README.md).]=], [=[
help.example_comments("n = 6   -" .. "- six tokens")
--> {"six tokens"}]=], help.example_comments)

def("help.register", "help.register(name, {sig = ..., doc = ..., example = ...} [, value])", [=[
Registers the help of name ("mylib.f", "Tensor:myop"): a signature, one paragraph and an example.
Give the documented value as the third argument when it cannot be reached by name from the
globals (a method, a local class), so help(value) finds it too.]=], [=[
function double(x) return 2 * x end
help.register("double", {sig = "double(x)", doc = "Twice x.", example = "double(2)"}, double)
help.text(double)
--> double(x)
-->   Twice x.
-->   Example: double(2)]=], help.register)

def("help.lookup", "help.lookup(x)", [=[
The registered entry of x (a value or a name) and the name it is registered under, or nil when
there is none.]=], [=[
entry, name = help.lookup(torch.zeros)
name, entry.sig
--> torch.zeros	torch.zeros(size... [, {dtype = ...}])]=], help.lookup)

def("help.show", "help.show([x])", [=[
The function behind help(x): writes help.text(x) and a newline through help.write. help(nil)
(usually a misspelt name, as in help(torch.sofmax)) says so instead of showing the tour.]=], [=[
help.show(torch.eye)]=], help.show)

def("help.format", "help.format(entry)", [=[
Lays out one entry {sig, doc, example} as help prints it: the signature, the paragraph wrapped at
78 columns, the example.]=], [=[
help.format{sig = "f(x)", doc = "Does f."}
--> f(x)
-->   Does f.]=], help.format)

def("help.write", "help.write(s)", [=[
Where help's output goes: io.write by default. Replace it to capture or redirect help.]=], [=[
saved, out = help.write, {}
help.write = function(s) out[#out + 1] = s end
help(torch.ones)
help.write = saved
out[1]:match("^[^\n]*")
--> torch.ones(size... [, {dtype = ...}])]=])

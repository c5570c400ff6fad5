-- docs/safetensors.lua — help for safetensors.load_file, save_file, torch.save and torch.load
-- (src/lua/safetensors.lua, src/lua/checkpoint.lua, src/core/safetensors.c). Registered when required by attn.docs.
local D = require("attn.docs.define")
local def = D.def
local safetensors = require("attn.safetensors")
local torch = require("attn.bind").torch

def("safetensors", "safetensors", [=[
Weights as data, never code: the safetensors format (Hugging Face's model.safetensors) is an 8-byte
length, a JSON header naming each tensor's dtype, shape and byte range, then the bytes.
safetensors.load_file(path) and safetensors.save_file(tensors, path [, metadata]); torch.save and
torch.load write and read tables of tensors and values in it, and torch.load refuses pickle
checkpoints and says how to convert one.]=], [=[
safetensors.save_file({w = torch.ones(2, 3)}, "/tmp/attn_doc.safetensors")
safetensors.load_file("/tmp/attn_doc.safetensors").w:sum()
--> tensor(6.)]=], safetensors)

def("safetensors.load_file", "safetensors.load_file(path) -> {name = tensor, ...}, metadata", [=[
Loads every tensor of a safetensors file into a table keyed by name (the file's "__metadata__", a
table of strings, or nil, is the second result). Each tensor is read into memory of its own, never
mapped: another program that truncates or rewrites the file afterwards changes nothing in a loaded
tensor, and changing a tensor in place never changes the file; a 500 MB model loads in about 0.3 s
from the page cache. F16, BF16 and
F64 become float32, I32, I16, I8 and U8 int64, BOOL bool. Everything the format requires is checked
first, and a file that breaks a rule is refused with its name and the rule: truncated, a header
length past the end (or over the format's 100 MB limit), a header that is not JSON, an unknown
dtype, a shape whose byte size is not its data_offsets' span, offsets past the end, two tensors
sharing bytes, bytes that belong to no tensor, a duplicated or non-UTF-8 name, and a model larger
than the memory available now.]=], [=[
safetensors.save_file({ids = torch.tensor{15496, 11}}, "/tmp/attn_doc.safetensors", {format = "pt"})
t, meta = safetensors.load_file("/tmp/attn_doc.safetensors")
t.ids, meta.format
--> tensor([15496,    11])	pt]=], safetensors.load_file)

def("safetensors.save_file", "safetensors.save_file(tensors, path [, metadata])", [=[
Writes a table {name = tensor, ...} as a safetensors file: float32 as F32, int64 as I64, bool as
BOOL, each tensor's elements in row-major order (a view is written as its contiguous copy would be);
metadata is an optional table of strings. The data is laid out so every tensor is aligned when the
file is loaded again; the file is written under path .. ".tmp" and renamed when complete, so a
failed write never leaves half a file under path.]=], [=[
safetensors.save_file({x = torch.arange(4):view(2, 2).T}, "/tmp/attn_doc.safetensors")
safetensors.load_file("/tmp/attn_doc.safetensors").x
--> tensor([[0, 2],
-->         [1, 3]])]=], safetensors.save_file)

def("torch.save", "torch.save(obj, path)", [=[
Writes obj — a tensor, or a table of tensors, numbers, strings, booleans and tables, such as
model:state_dict() or the book's {model_state_dict = model:state_dict(), optimizer_state_dict =
optimizer:state_dict()} — as a safetensors file (data only, never a pickle, whatever the file's
name): each tensor under its path of keys ("model_state_dict/tok_emb.weight"; a plain state dict's
under its own names, as Python's safetensors.torch.save_file writes them), the other values in the
header's __metadata__, so torch.load gives back the same table: integers stay integers, every float
its exact bits, ordered tables their order. The file is written beside path and renamed when complete.
A module itself cannot be saved: save its state_dict().]=], [=[
torch.save({lr = 0.0005, betas = {0.9, 0.999}, w = torch.ones(2)}, "/tmp/attn_doc.pth")
back = torch.load("/tmp/attn_doc.pth")
back.lr, back.betas[2], back.w
--> 0.0005	0.999	tensor([1., 1.])]=], torch.save)

def("torch.load", "torch.load(path [, {map_location =, weights_only =}])", [=[
Reads what torch.save wrote (the same table, tensors read into memory of their own), or any
safetensors file as its table {name = tensor}, so model:load_state_dict(torch.load(path)) loads a
state dict saved in Python with safetensors.torch.save_file(model.state_dict(), path) too.
map_location and weights_only are accepted as the book passes them (attn runs on the CPU and reads
data only). PyTorch's own .pt/.pth/.bin checkpoints are Python pickles, and unpickling runs code
chosen by whoever made the file: torch.load refuses them, always, and its message shows the lines of
Python that save one as safetensors.]=], [=[
ok, err = pcall(torch.load, "model.pth")
ok
--> false]=], torch.load)

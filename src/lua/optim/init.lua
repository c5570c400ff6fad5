-- init.lua — torch.optim (module attn.optim): SGD, Adam, AdamW, one per file, sharing optimizer.lua.
-- Each class also has .step_tensors(params, grads, states, opts): the update itself, on explicit
-- gradients (what step() calls with p.grad).
return {
    SGD = require("attn.optim.sgd"),
    Adam = require("attn.optim.adam").class,
    AdamW = require("attn.optim.adamw"),
}

-- spec.lua — the kernelspecs attn installs (module attn.kernel.spec; src/cli/kernel_install.c writes
-- them): "attn", and "attn-zh_cn", the same kernel with its text in Chinese (ATTN_LANG, as --lang sets).
--
--   spec.files(attn_path) -> {{name = "attn/kernel.json", data = text}, {name = "attn/logo-64x64.png", ...}, ...}
local json = require("attn.json")
local i18n = require("attn.i18n")

local spec = {}

-- The logo, drawn by scripts/kernel-logo.sh and embedded in attn with the catalogs.
local LOGOS = {"logo-32x32.png", "logo-64x64.png", "logo-svg.svg"}

local function kernel_json(attn_path, display_name, env)
    return json.encode({
        argv = {attn_path, "--kernel", "{connection_file}"},
        display_name = display_name,
        language = "lua",
        interrupt_mode = "signal",
        env = env or {},
        metadata = {debugger = false},
    }, true) .. "\n"
end

function spec.files(attn_path)
    local files = {}
    local kernels = {{"attn", "attn (Lua 5.4)", nil}, {"attn-zh_cn", "attn（中文，Lua 5.4）", {ATTN_LANG = "zh_CN"}}}
    for _, k in ipairs(kernels) do
        files[#files + 1] = {name = k[1] .. "/kernel.json", data = kernel_json(attn_path, k[2], k[3])}
        for _, logo in ipairs(LOGOS) do
            local data = i18n.data("kernel-" .. logo)
            if data then files[#files + 1] = {name = k[1] .. "/" .. logo, data = data} end
        end
    end
    return files
end

return spec

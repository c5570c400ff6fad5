-- plumbing.lua — the lesson plumbing a step must not show the class: plumbing(line) is the name of what
-- the line shows (pcall(, os.getenv, lesson.skip, print(lesson.tr(...)) or nil. One list for both
-- checks: tests/lua/lesson_code_spec.lua reads the lessons' source, tests/i18n/step_walk.lua what
-- --step shows. (`ok, err = pcall(f, ...)` followed by showing both is lesson 07's subject, a refused
-- call: that is the book's code, not plumbing.)
local PLUMBING = {"os%.getenv", "lesson%.skip", "lesson%.print%(lesson%.tr", "print%(lesson%.tr", "pcall%("}

return function(line)
    if line:match("^%s*ok, err = pcall%(") then return nil end
    for _, p in ipairs(PLUMBING) do
        if line:find(p) then return (p:gsub("%%", "")) end
    end
end

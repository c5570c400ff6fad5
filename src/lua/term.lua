-- term.lua — what attn knows about the terminal it runs in (module attn.term). The command line
-- (src/cli) sets these once, when it starts and for each lesson state of --check; the library only
-- reads them. In stock Lua (require "attn") they keep their defaults: no colour, no keys.
--
--   term.color     colour on stdout: it is a terminal and NO_COLOR is unset or empty (the REPL's
--                  errors, heatmaps, the tracer, the lesson library); --check turns it off
--   term.tty       stdout is a terminal (the lesson library erases its prompt once it is answered)
--   term.readkey   a function that waits for one key and returns it: "\n" for Enter, "q" at the end
--                  of input (--step's keys); nil when there is no terminal to read from
--   term.readline  a function that reads one typed line (the terminal echoes and edits it) and
--                  returns it without its newline and whether the terminal echoed it, or nil at
--                  the end of input (--step's g)
--   term.size      a function returning the terminal's rows and columns, or nil when stdout is not a
--                  terminal (--step's "more" pause and its key line)
return {
    color = false,
    tty = false,
    readkey = nil,
    readline = nil,
    size = nil,
}

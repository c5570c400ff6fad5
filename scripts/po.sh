#!/bin/sh
# The translators' side of attn's gettext catalogs (lessons/README.md says how to use it).
#   sh scripts/po.sh pot [ATTN]      the templates, from the sources, into build/po/:
#                                      lessons/NN_name.pot  xgettext over one lesson, the lesson library's
#                                                           functions as keywords (lesson.say, ...)
#                                      lib/<folder>.pot     xgettext over one folder of src/lua (attn.pot:
#                                                           its top-level files), keywords tr (tr_), trf and N
#                                      lib/core.pot         xgettext over src/core, src/bind and src/cli: the
#                                                           formats of attn_fail, fail, lt_error and attn_tr
#                                      lib/page.pot         xgettext over the web page's scripts
#                                                           (src/web/page/page.js, models.js), keyword tr: its
#                                                           buttons, labels, tooltips and status lines
#                                      docs/<topic>.pot     every ?name entry of src/lua/docs/<topic>.lua
#                                                           (its paragraph and its example's comments),
#                                                           written by ATTN scripts/po-docs.lua
#   sh scripts/po.sh update [ATTN]   the templates, then every src/po/<lang>/ catalog merged with them
#                                    (msgmerge; msginit makes a catalog a language lacks)
#   sh scripts/po.sh check [ATTN]    TAP: every catalog of every language is complete (msgcmp against
#                                    its template), 100% translated and without fuzzy entries
#                                    (msgfmt --check --statistics); a domain listed in
#                                    src/po/<lang>/TODO is reported as skipped
set -eu
cmd=${1:-check}
attn=${2:-./attn}
out=build/po

pot() {
    rm -rf "$out"
    mkdir -p "$out/lessons" "$out/lib" "$out/docs"
    for f in lessons/*.lua; do
        xgettext --language=Lua --from-code=UTF-8 --force-po --package-name=attn --add-comments=TRANSLATORS: \
            --add-location=file --no-wrap -k -klesson.title -klesson.section -klesson.say -klesson.step -klesson.check -klesson.agree \
            -klesson.show -klesson.tr -klesson.printf -klesson.skip -o "$out/lessons/$(basename "$f" .lua).pot" "$f"
        # lesson.title's {source = "..."}, the texts a lesson comes from, is a table field xgettext cannot
        # see: it goes into the lesson's template as if the lesson had called lesson.tr on it
        src_pot="$out/lessons/$(basename "$f" .lua).source.pot"
        sed -n 's/.*source = \("[^"]*"\).*/lesson.tr(\1)/p' "$f" >"$out/source.lua"
        if [ -s "$out/source.lua" ]; then
            xgettext --language=Lua --from-code=UTF-8 --force-po --add-location=file --no-wrap -klesson.tr \
                -o "$src_pot" "$out/source.lua"
            sed -i "s|^#: $out/source.lua|#: $f|" "$src_pot"
            msgcat --use-first --no-wrap --add-location=file -o "$out/lessons/$(basename "$f" .lua).pot" \
                "$out/lessons/$(basename "$f" .lua).pot" "$src_pot"
            rm -f "$src_pot"
        fi
        rm -f "$out/source.lua"
        # the comments inside its steps, which the lesson library shows translated (lesson/source.lua):
        # lesson.tr lines written by scripts/po-lesson-comments.lua, merged in the same way
        "$attn" scripts/po-lesson-comments.lua "$f" >"$out/comments.lua"
        if [ -s "$out/comments.lua" ]; then
            xgettext --language=Lua --from-code=UTF-8 --force-po --add-location=file --no-wrap -klesson.tr \
                --add-comments=TRANSLATORS: -o "$src_pot" "$out/comments.lua"
            sed -i "s|^#: $out/comments.lua|#. a comment in the code of a step\n#: $f|" "$src_pot"
            msgcat --use-first --no-wrap --add-location=file -o "$out/lessons/$(basename "$f" .lua).pot" \
                "$out/lessons/$(basename "$f" .lua).pot" "$src_pot"
            rm -f "$src_pot"
        fi
        rm -f "$out/comments.lua"
    done
    for d in src/lua src/lua/*/; do
        d=${d%/}
        if [ "$d" = src/lua ]; then name=attn; files=$(ls src/lua/*.lua); else name=$(basename "$d"); files=$(ls "$d"/*.lua); fi
        [ "$name" = docs ] && continue
        # errors: errors.raise/raisef (and check.lua's fail, gpt/inspect.lua's and attention/variants.lua's
        # fail_at, the attention tracer's fail and spec.fail) translate their message or format, so their
        # literal first argument (fail_at's second) is a message too
        raise_keywords="-kerrors.raise -kerrors.raisef -kraise -kraisef -kfail -kspec.fail -kfail_at:2 -klabelled -kwarnings.warn"
        # shellcheck disable=SC2086  # one argument per file, one per keyword
        xgettext --language=Lua --from-code=UTF-8 --force-po --package-name=attn --add-comments=TRANSLATORS: \
            --add-location=file --no-wrap -k -ktr -ktr_ -ktrf -kN -ki18n.tr -ki18n.trf $raise_keywords \
            -o "$out/lib/$name.pot" $files
    done
    # the C program's messages (lib/core.pot): the error formats of the core (attn_fail, rng.c's fail)
    # and of the bindings (lt_error), translated before formatting (attn_tr, src/core/tensor.h), and the
    # command line's own (attn_tr: --help, a bad option, --check's and --verify's reports)
    xgettext --language=C --from-code=UTF-8 --force-po --package-name=attn --add-comments=TRANSLATORS: \
        --add-location=file --no-wrap -k -kattn_fail:2 -klt_error:2 -kfail:2 -kattn_tr \
        -o "$out/lib/core.pot" src/core/*.c src/bind/*.c src/cli/*.c src/web/*.c src/web/page/*.c
    # the web page's own words (lib/page.pot; make web turns the catalogs into build/web/words.json)
    xgettext --language=JavaScript --from-code=UTF-8 --force-po --package-name=attn --add-comments=TRANSLATORS: \
        --add-location=file --no-wrap -k -ktr -o "$out/lib/page.pot" src/web/page/page.js src/web/page/models.js
    "$attn" scripts/po-docs.lua "$out/docs"
    # no creation date: a catalog changes only when its messages do (no conflicts between translators)
    for t in $(find "$out" -name '*.pot'); do sed -i '/^"POT-Creation-Date: /d' "$t"; done
}

update() {
    pot
    for lang in src/po/*/; do
        lang=$(basename "$lang")
        for t in $(cd "$out" && find . -name '*.pot' | sort); do
            t=${t#./}
            po=src/po/$lang/${t%.pot}.po
            mkdir -p "$(dirname "$po")"
            if [ -f "$po" ]; then
                msgmerge --quiet --update --backup=none --no-wrap --add-location=file "$po" "$out/$t"
                msgattrib --no-obsolete --no-wrap -o "$po" "$po"   # messages the sources dropped
            else
                msginit --no-translator --no-wrap --locale="$lang.UTF-8" -i "$out/$t" -o "$po"
                sed -i 's/charset=ASCII/charset=UTF-8/' "$po"   # a template without non-ASCII text
            fi
        done
    done
}

check() {
    pot >/dev/null
    n=0
    for lang in src/po/*/; do
        lang=$(basename "$lang")
        for t in $(cd "$out" && find . -name '*.pot' | sort); do
            t=${t#./}
            domain=${t%.pot}
            po=src/po/$lang/$domain.po
            n=$((n + 1))
            if [ -f "src/po/$lang/TODO" ] && grep -qx "$domain" "src/po/$lang/TODO"; then
                echo "ok $n - $lang $domain # SKIP not translated yet (src/po/$lang/TODO)"
                continue
            fi
            if [ ! -f "$po" ]; then
                echo "not ok $n - $lang $domain: no catalog $po (sh scripts/po.sh update makes it)"
                continue
            fi
            stats=$(msgfmt --check --statistics -o /dev/null "$po" 2>&1) || { echo "not ok $n - $lang $domain: msgfmt --check"; echo "$stats" | sed 's/^/#   /'; continue; }
            missing=$(msgcmp "$po" "$out/$t" 2>&1) || { echo "not ok $n - $lang $domain: messages missing from $po (sh scripts/po.sh update)"; echo "$missing" | head -n 10 | sed 's/^/#   /'; continue; }
            case $stats in
            *fuzzy* | *untranslated*) echo "not ok $n - $lang $domain: $stats" ;;
            *) echo "ok $n - $lang $domain: $stats" ;;
            esac
        done
    done
    echo "1..$n"
}

case $cmd in
pot) pot ;;
update) update ;;
check) check ;;
*) echo "usage: sh scripts/po.sh pot|update|check [ATTN]" >&2; exit 2 ;;
esac

# same_files.sh — sourced by the tests that compare outputs.sh's folders (after tests/tap.sh):
# same_files WANT GOT LABEL: one TAP result per file of WANT, ok when GOT has the same bytes; a difference
# is shown as the first lines of a diff, and counted ("N of M lines differ").
same_files() {
    for want in "$1"/*.txt; do
        file=$(basename "$want")
        got="$2/$file"
        if cmp -s "$want" "$got"; then
            ok "$3: $file byte for byte as $(basename "$1")"
        else
            not_ok "$3: $file byte for byte as $(basename "$1")"
            printf '#   %s of %s lines differ\n' "$(diff "$want" "$got" 2>/dev/null | grep -c '^>')" \
                "$(wc -l <"$want")"
            diff "$want" "$got" 2>&1 | head -n 12 | sed 's/^/#   /'
        fi
    done
}

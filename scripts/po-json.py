"""po-json.py — the web page's words (src/web/web.mk): compiled catalogs build/gen/mo/<lang>/lib/page.mo
as one JSON object {"<lang>": {"msgid": "translation", ...}, ...} on stdout, for src/web/page/page.js's tr.
Read by Python's own gettext module (its GNUTranslations parses the .mo; the header entry is left out).

    python3 scripts/po-json.py build/gen/mo/zh_CN/lib/page.mo ... > build/web/words.json
"""
import gettext
import json
import sys

words = {}
for path in sys.argv[1:]:
    lang = path.split("/")[-3]  # build/gen/mo/<lang>/lib/page.mo
    with open(path, "rb") as f:
        catalog = gettext.GNUTranslations(f)._catalog  # msgid -> msgstr (no public accessor)
    words[lang] = {k: v for k, v in sorted(catalog.items()) if k and v}
json.dump(words, sys.stdout, ensure_ascii=False, indent=1, sort_keys=True)
sys.stdout.write("\n")

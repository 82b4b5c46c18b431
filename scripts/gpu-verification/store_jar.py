"""Rewrites a Spring Boot fat jar with every entry STORED (no compression), nested jars too.

Why: the device tool carries at most 64 MiB per call. A fat jar is a zip of zips, each already
deflated file by file, so xz gains nothing on it. Stored, the class files of all libraries sit
side by side in one stream and xz compresses them several times better than deflate did.
The result runs exactly as the original (`java -jar`): only compression changes, not a byte of
any entry, so signatures and multi-release layouts stay valid.

usage: store_jar.py IN.jar OUT.jar
"""

import io
import sys
import zipfile


def stored_copy(source, target):
    for info in source.infolist():
        data = source.read(info)
        if info.filename.endswith(".jar"):
            inner = io.BytesIO()
            with zipfile.ZipFile(io.BytesIO(data)) as nested, zipfile.ZipFile(inner, "w") as out:
                stored_copy(nested, out)
            data = inner.getvalue()
        copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
        copy.external_attr = info.external_attr
        copy.compress_type = zipfile.ZIP_STORED
        target.writestr(copy, data)


def main():
    source_path, target_path = sys.argv[1], sys.argv[2]
    with zipfile.ZipFile(source_path) as source, zipfile.ZipFile(target_path, "w") as target:
        stored_copy(source, target)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate src/formats/shared/datafiles/location/best_fit_generated.rs from Windows' best-fit tables.

A Windows program that opens files through the `A` APIs converts each Unicode name to its
ANSI code page with WideCharToMultiByte, whose "best-fit" mapping turns characters the code
page lacks into look-alikes: U+FF0F FULLWIDTH SOLIDUS becomes `/` in code page 1252, U+00A5
YEN SIGN becomes `\\` in code page 932. The generated table lists every non-ASCII character
that the ANSI code pages below turn into `.`, `/`, `\\`, `:` or a space, with the code pages
that do, sorted by character (the Rust side looks characters up by binary search).

Source: the code page tables c_<page>.nls that Debian's `libwine` 8.0~repack-4 installs in
usr/share/wine/nls/. Wine builds them from Microsoft's published code page data files: the
MBTABLE/WCTABLE text files that are also published as WindowsBestFit/bestfit<page>.txt. The
WCTABLE (Unicode to code page) is the best-fit mapping, and becomes the uni2cp table read
here. NLS_SHA256 pins the files, so a table from another Wine build is refused rather than
read silently: to move to a newer Wine, update WINE_VERSION and NLS_SHA256, rerun, and
review the diff of best_fit_generated.rs.

Layout of a c_<page>.nls file, all little-endian 16-bit words (Wine's dlls/ntdll/locale.c
documents it; RtlInitCodePageTable reads it):
  header   [0] header size in words (13), [1] code page, [2] max char size (1 = SBCS,
           2 = DBCS), [3..6] default chars, [7..12] lead byte ranges
  cp2uni   at word h = header size: [h] offset in words from h to the uni2cp marker, then
           the 256-word byte -> Unicode table, glyph and lead byte tables
  uni2cp   a marker word (0 for SBCS, 4 for DBCS), then 65536 entries indexed by UTF-16
           code unit: bytes for SBCS, words for DBCS (a value above 0xFF is a two-byte
           sequence, lead byte high), ending the file
The parser checks each of these, and then a few known mappings.

Usage: gen_best_fit.py [--nls DIR] [--check]
  --nls DIR  read c_<page>.nls from DIR instead of downloading libwine with apt-get
             (e.g. a folder where `dpkg-deb -x libwine_8.0~repack-4_*.deb` put usr/share/wine/nls)
  --check    do not write; exit 1 if best_fit_generated.rs is missing or out of date
Without --nls, the script runs `apt-get download libwine=8.0~repack-4` in a scratch folder
(Debian bookworm's package; run `apt-get update` first) and reads the tables out of the
package without installing it. Python 3.11+ (standard library), apt-get and dpkg-deb, and
rustfmt to format the output. Run from anywhere.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT_PATH = ROOT / "src" / "formats" / "shared" / "datafiles" / "location" / "best_fit_generated.rs"

WINE_PACKAGE = "libwine"
WINE_VERSION = "8.0~repack-4"
NLS_DIR_IN_PACKAGE = "usr/share/wine/nls"

# The ANSI code pages of Windows locales: Thai, Japanese, Simplified Chinese, Korean,
# Traditional Chinese, and the Windows-125x family (Central European, Cyrillic, Western,
# Greek, Turkish, Hebrew, Arabic, Baltic, Vietnamese).
ANSI_CODE_PAGES = [874, 932, 936, 949, 950, *range(1250, 1259)]

# SHA-256 of c_<page>.nls in libwine 8.0~repack-4.
NLS_SHA256 = {
    874: "42ec3c5825a9d59009470c1aeba338e7c3ae7ba6c59d1e9e1efa7cac73116299",
    932: "dab57ece81509bb4d9f1d8df5c39e7b2ffaffda0a2d6e1028ddf822a04315d10",
    936: "29f6633ee0df301fb6cc659f3941be9fcc1d9f6e633c7df24864c6d5b462f5a0",
    949: "5962daff7400af816266f0eab942b5d6c3fb5603be1055911c80325f68600b26",
    950: "ab1f87a022ccc5e6d063520a652a7cf1d0a3ac3c3dd1faf18285490a70b9b688",
    1250: "99ddf78fd740d5d73871f377b003245d7e21f6df6d1fc8bd729b17cfc0533b4f",
    1251: "0a290fd64ff2f5176ff0582b2dad396bbf6636d408e061fae7158dd89606928b",
    1252: "e2634ee32da7977d762d2d45be2053309ee718572a7d8bb0034180dc1b0b6b76",
    1253: "a9543da84c7fc172a0523ae1f9f6122f36cd29d60c7a5390e97c09d574774793",
    1254: "70756e5f20fe0e095e319b3c021a92a8a311847249e13f3ee88804cecc1df747",
    1255: "d25f2cbf67dc8932811799c003981d6ccf479b476f612382021af3cef6113a48",
    1256: "66f87b8e30c4e72f861993f48f5f34387663545a4cd23ad3e0dd9ed146467639",
    1257: "6ee5c098f01433e56fd92bc66d8d5530946ad1dcee96998e09e9b6df05e7d611",
    1258: "f1966c599370dac14cea80810075b260eaa4b97689c47f6317e5a4ec30c23496",
}

# The bytes that matter in a path: dot, slash, backslash, colon, space.
TARGETS = {0x2E: ".", 0x2F: "/", 0x5C: "\\", 0x3A: ":", 0x20: " "}

# Mappings every parse must reproduce, so that a misread layout fails loudly.
KNOWN = [
    (1252, 0xFF0F, 0x2F),  # FULLWIDTH SOLIDUS -> '/'
    (1252, 0x2044, 0x2F),  # FRACTION SLASH -> '/'
    (1252, 0x00E9, 0xE9),  # e acute, a round trip
    (932, 0x00A5, 0x5C),  # YEN SIGN -> '\'
    (932, 0x3042, 0x82A0),  # HIRAGANA LETTER A, a two-byte sequence
    (949, 0x20A9, 0x5C),  # WON SIGN -> '\'
]


class SourceError(Exception):
    pass


def read_uni2cp(page: int, data: bytes) -> list[int]:
    """The Unicode -> code page table of one c_<page>.nls file: 65536 values."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != NLS_SHA256[page]:
        raise SourceError(
            f"c_{page}.nls has SHA-256 {digest}, not that of {WINE_PACKAGE} {WINE_VERSION}"
        )
    words = struct.unpack(f"<{len(data) // 2}H", data[: len(data) // 2 * 2])
    header, code_page, char_size = words[0], words[1], words[2]
    if header != 13 or code_page != page or char_size not in (1, 2):
        raise SourceError(f"c_{page}.nls: unexpected header {words[:3]}")
    marker = header + words[header]
    start = marker + 1
    if char_size == 1:
        table = list(data[2 * start : 2 * start + 0x10000])
        end = 2 * start + 0x10000
    else:
        table = list(words[start : start + 0x10000])
        end = 2 * (start + 0x10000)
    if words[marker] != (0 if char_size == 1 else 4) or len(data) != end:
        raise SourceError(
            f"c_{page}.nls: uni2cp marker {words[marker]} or size {len(data)} "
            f"does not match a {char_size}-byte code page"
        )
    if any(table[c] != c for c in range(0x80)):
        raise SourceError(f"c_{page}.nls: ASCII does not map to itself")
    return table


def load_from_dir(folder: Path) -> dict[int, bytes]:
    return {page: (folder / f"c_{page}.nls").read_bytes() for page in ANSI_CODE_PAGES}


def load_from_package() -> dict[int, bytes]:
    """Downloads libwine with apt-get and reads the tables out of its data archive."""
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise SourceError(f"{tool} not found: pass --nls DIR instead")
    wanted = {f"./{NLS_DIR_IN_PACKAGE}/c_{page}.nls": page for page in ANSI_CODE_PAGES}
    found: dict[int, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="gen_best_fit-") as tmp:
        Path(tmp).chmod(0o755)  # apt-get downloads as the _apt user when it can
        spec = f"{WINE_PACKAGE}={WINE_VERSION}"
        print(f"gen_best_fit: apt-get download {spec}", file=sys.stderr)
        subprocess.run(["apt-get", "download", "-q", spec], cwd=tmp, check=True)
        (deb,) = Path(tmp).glob(f"{WINE_PACKAGE}_*.deb")
        tar = subprocess.run(
            ["dpkg-deb", "--fsys-tarfile", str(deb)], check=True, capture_output=True
        ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        for member in archive:
            if member.name in wanted:
                found[wanted[member.name]] = archive.extractfile(member).read()
    missing = sorted(set(ANSI_CODE_PAGES) - set(found))
    if missing:
        raise SourceError(f"{WINE_PACKAGE} {WINE_VERSION} has no c_<page>.nls for {missing}")
    return found


def collect(tables: dict[int, list[int]]) -> list[tuple[int, str, list[int]]]:
    """(character, ASCII target, code pages) for every non-ASCII character that matters."""
    for page, char, value in KNOWN:
        if tables[page][char] != value:
            raise SourceError(
                f"code page {page} maps U+{char:04X} to {tables[page][char]:#x}, not {value:#x}"
            )
    found: dict[int, tuple[str, list[int]]] = {}
    for page in ANSI_CODE_PAGES:
        for char in range(0x80, 0x10000):
            target = TARGETS.get(tables[page][char])
            if target is None:
                continue
            if 0xD800 <= char < 0xE000:
                # A surrogate would put every character of its half-plane in the table.
                raise SourceError(f"code page {page} maps surrogate U+{char:04X} to {target!r}")
            to, pages = found.setdefault(char, (target, []))
            if to != target:
                raise SourceError(f"U+{char:04X} becomes both {to!r} and {target!r}")
            pages.append(page)
    return [(char, to, pages) for char, (to, pages) in sorted(found.items())]


def rust_char(c: str) -> str:
    return {"\\": "'\\\\'"}.get(c, f"'{c}'")


def render(entries: list[tuple[int, str, list[int]]]) -> str:
    doc = textwrap.wrap(
        "Every non-ASCII character that best-fit conversion to an ANSI code page turns into "
        "`.`, `/`, `\\`, `:` or a space, with the code pages that do, sorted by character. "
        f"Code pages read: {', '.join(map(str, ANSI_CODE_PAGES))}.",
        width=92,
    )
    out = [
        "// @generated by schema/gen_best_fit.py from the Windows code page tables",
        f"// {NLS_DIR_IN_PACKAGE}/c_<page>.nls of Debian's {WINE_PACKAGE} {WINE_VERSION} (Wine builds",
        "// them from Microsoft's best-fit tables). Do not edit: rerun the script.",
        "",
        "use super::BestFit;",
        "",
        *(f"/// {line}" for line in doc),
        f"pub(super) static BEST_FIT: [BestFit; {len(entries)}] = [",
    ]
    for char, to, code_pages in entries:
        out.append(f"    // U+{char:04X} {unicodedata.name(chr(char), 'unnamed')}")
        out.append(
            f"    BestFit {{ from: '\\u{{{char:x}}}', to: {rust_char(to)}, "
            f"code_pages: &[{', '.join(map(str, code_pages))}] }},"
        )
    out += ["];", ""]
    return "\n".join(out)


def rustfmt(path: Path) -> None:
    exe = shutil.which("rustfmt")
    if exe is None:
        raise SourceError("rustfmt not found on PATH (needed to format the generated file)")
    subprocess.run([exe, "--edition", "2021", str(path)], check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nls", type=Path, help="folder holding c_<page>.nls (default: download)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if best_fit_generated.rs is missing or differs from what would be generated")
    args = ap.parse_args()
    rel = OUT_PATH.relative_to(ROOT)
    try:
        files = load_from_dir(args.nls) if args.nls else load_from_package()
        tables = {page: read_uni2cp(page, data) for page, data in files.items()}
        entries = collect(tables)
        OUT_PATH.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=OUT_PATH.parent, prefix=".gen-") as tmp:
            tmp_path = Path(tmp) / OUT_PATH.name
            tmp_path.write_text(render(entries), encoding="utf-8")
            rustfmt(tmp_path)
            text = tmp_path.read_text(encoding="utf-8")
    except (SourceError, OSError, subprocess.CalledProcessError) as e:
        print(f"gen_best_fit: error: {e}", file=sys.stderr)
        return 1
    current = OUT_PATH.read_text(encoding="utf-8") if OUT_PATH.exists() else None
    if args.check:
        if current != text:
            print(f"gen_best_fit: {rel} is out of date; run schema/gen_best_fit.py", file=sys.stderr)
            return 1
        print(f"gen_best_fit: {rel} is up to date ({len(entries)} characters)")
        return 0
    if current != text:
        OUT_PATH.write_text(text, encoding="utf-8")
        print(f"gen_best_fit: wrote {rel} ({len(entries)} characters)")
    else:
        print(f"gen_best_fit: {rel} unchanged ({len(entries)} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

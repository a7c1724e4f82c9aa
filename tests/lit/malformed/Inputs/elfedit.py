#!/usr/bin/env python3
"""Writes a corrupted copy of a Warp ELF file (ELF32, little-endian), one edit per
argument, for the malformed-input tests:

    elfedit.py IN OUT EDIT...

    truncate=N                 keep the first N bytes (N may be negative: drop -N)
    ehdr.FIELD=V               an ELF header field: e_type e_machine e_version e_entry
                               e_phoff e_shoff e_flags e_ehsize e_phentsize e_phnum
                               e_shentsize e_shnum e_shstrndx, or ei_class ei_data
    shdr[SEC].FIELD=V          a section header field (sh_name sh_type sh_flags sh_addr
                               sh_offset sh_size sh_link sh_info sh_addralign
                               sh_entsize); SEC is a name or an index
    sym[NAME].FIELD=V          a symbol (st_name st_value st_size st_info st_shndx)
    rela[SEC][I].FIELD=V       relocation I of a RELA section (r_offset r_info r_addend)
    bytes[SEC]+OFF=HEX         overwrite bytes of a section's contents
    bytes[SEC]-OFF=HEX         the same, OFF bytes back from the section's end
    text[SEC]=STRING           replace a section's contents with STRING (\\n escapes),
                               appended at the end of the file

V is a decimal or 0x number. Positions are found in the input, before any edit."""
import struct
import sys

EHDR = [("e_type", 16, "H"), ("e_machine", 18, "H"), ("e_version", 20, "I"), ("e_entry", 24, "I"),
        ("e_phoff", 28, "I"), ("e_shoff", 32, "I"), ("e_flags", 36, "I"), ("e_ehsize", 40, "H"),
        ("e_phentsize", 42, "H"), ("e_phnum", 44, "H"), ("e_shentsize", 46, "H"), ("e_shnum", 48, "H"),
        ("e_shstrndx", 50, "H"), ("ei_class", 4, "B"), ("ei_data", 5, "B")]
SHDR = ["sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset", "sh_size", "sh_link", "sh_info",
        "sh_addralign", "sh_entsize"]
SYM = [("st_name", 0, "I"), ("st_value", 4, "I"), ("st_size", 8, "I"), ("st_info", 12, "B"),
       ("st_other", 13, "B"), ("st_shndx", 14, "H")]
RELA = [("r_offset", 0, "I"), ("r_info", 4, "I"), ("r_addend", 8, "i")]


def die(msg):
    sys.exit("elfedit: " + msg)


def sections(data):
    shoff, = struct.unpack_from("<I", data, 32)
    shnum, shstrndx = struct.unpack_from("<HH", data, 48)
    secs = [dict(zip(SHDR, struct.unpack_from("<10I", data, shoff + 40 * i)), hdr=shoff + 40 * i)
            for i in range(shnum)]
    strtab = secs[shstrndx]
    for s in secs:
        off = strtab["sh_offset"] + s["sh_name"]
        s["name"] = data[off:data.index(b"\0", off)].decode()
    return secs


def find_section(secs, key):
    for i, s in enumerate(secs):
        if s["name"] == key or key == str(i):
            return s
    die("no section " + key)


def put(data, off, fmt, v):
    if fmt in "Hh":
        v &= 0xffff
    elif fmt == "B":
        v &= 0xff
    elif fmt == "I":
        v &= 0xffffffff
    struct.pack_into("<" + fmt, data, off, v)


def main():
    if len(sys.argv) < 4:
        die("usage: elfedit.py IN OUT EDIT...")
    data = bytearray(open(sys.argv[1], "rb").read())
    secs = sections(data)
    truncate = None
    for edit in sys.argv[3:]:
        lhs, _, rhs = edit.partition("=")
        num = lambda: int(rhs, 0)
        if lhs == "truncate":
            truncate = num()
        elif lhs.startswith("ehdr."):
            f = [e for e in EHDR if e[0] == lhs[5:]] or die("no header field " + lhs)
            put(data, f[0][1], f[0][2], num())
        elif lhs.startswith("shdr["):
            key, _, field = lhs[5:].partition("].")
            s = find_section(secs, key)
            field in SHDR or die("no section header field " + field)
            put(data, s["hdr"] + 4 * SHDR.index(field), "I", num())
        elif lhs.startswith("sym["):
            name, _, field = lhs[4:].partition("].")
            symtab = [s for s in secs if s["sh_type"] == 2][0]
            strtab = secs[symtab["sh_link"]]
            for i in range(symtab["sh_size"] // 16):
                off = symtab["sh_offset"] + 16 * i
                st_name, = struct.unpack_from("<I", data, off)
                noff = strtab["sh_offset"] + st_name
                if data[noff:data.index(b"\0", noff)].decode() == name:
                    break
            else:
                die("no symbol " + name)
            f = [e for e in SYM if e[0] == field] or die("no symbol field " + field)
            put(data, off + f[0][1], f[0][2], num())
        elif lhs.startswith("rela["):
            key, _, rest = lhs[5:].partition("][")
            index, _, field = rest.partition("].")
            s = find_section(secs, key)
            f = [e for e in RELA if e[0] == field] or die("no relocation field " + field)
            put(data, s["sh_offset"] + 12 * int(index) + f[0][1], f[0][2], num())
        elif lhs.startswith("bytes["):
            key, _, off = lhs[6:].partition("]")
            s = find_section(secs, key)
            b = bytes.fromhex(rhs)
            start = s["sh_offset"] + (int(off, 0) if off[0] == "+" else s["sh_size"] + int(off, 0))
            data[start:start + len(b)] = b
        elif lhs.startswith("text["):
            s = find_section(secs, lhs[5:].rstrip("]"))
            b = rhs.encode().decode("unicode_escape").encode("latin-1")
            put(data, s["hdr"] + 16, "I", len(data))
            put(data, s["hdr"] + 20, "I", len(b))
            data += b
        else:
            die("unknown edit " + edit)
    if truncate is not None:
        data = data[:truncate] if truncate >= 0 else data[:len(data) + truncate]
    open(sys.argv[2], "wb").write(data)


main()

; The Warp interface unit's table of pre-stored addresses (seed 002, section 4.2:
; "to support complex addressing schemes for important algorithms such as FFT, the
; IU contains a table of pre-stored addresses"; warp_ops.def's tld row, 1024 entries
; chosen). `.iutable` fills it (.warp.iutab in the object and the image), the IU
; reads entry k with tld at byte offset 4k and sends it on @adr, and each cell loads
; its own vals[] at that address: here the bit-reversed order of 8 words, the FFT's.
; Two cells each add vals[bitrev(i)] to x[i]: y = x + 2 * (100 + bitrev(i)).
; RUN: rm -rf %t && mkdir -p %t && cd %t
; RUN: warp-as -o tab.o %s && warp-ld -e main -o tab.img tab.o
; RUN: printf '1\n2\n3\n4\n5\n6\n7\n8\n' > x
; RUN: warp-sim tab.img --in x=x --stats 2>stats | FileCheck --check-prefix=OUT %s
; OUT: 201
; OUT-NEXT: 210
; OUT-NEXT: 207
; OUT-NEXT: 216
; OUT-NEXT: 207
; OUT-NEXT: 216
; OUT-NEXT: 213
; OUT-NEXT: 222
; RUN: FileCheck --check-prefix=STATS %s < stats
; STATS: address path @adr: 16 words from the iu
;
; Without the table (its section dropped from the image) every tld reads 0, and
; each cell adds vals[0]: the table is what gave the order.
; RUN: python3 %S/../malformed/Inputs/elfedit.py tab.img notab.img 'shdr[.warp.iutab].sh_name=0'
; RUN: warp-sim notab.img --in x=x | FileCheck --check-prefix=NOTAB %s
; NOTAB: 201
; NOTAB-NEXT: 202
; NOTAB-NEXT: 203
;
; warp-objdump shows the op and the table, in the object and the image, as warp-as
; reads them; the table's lines assemble back to the same section.
; RUN: warp-objdump -d tab.o | FileCheck --check-prefix=DIS %s
; RUN: warp-objdump -d tab.img | FileCheck --check-prefix=DIS %s
; DIS: nop || isub r3, r3, 1 | tld r4, [r6, 0] | hld @fxl, [r1, r0]
; DIS: Interface unit address table (.warp.iutab, 8 entries):
; DIS-NEXT: 0: .iutable 0, 16, 8, 24, 4, 20, 12, 28
; RUN: (echo '        .model warp'; warp-objdump -d tab.o | grep '\.iutable' | cut -f2) > back.s
; RUN: warp-as -o back.o back.s
; RUN: readelf -x .warp.iutab tab.o | grep 0x > want.hex
; RUN: readelf -x .warp.iutab back.o | grep 0x > got.hex
; RUN: cmp want.hex got.hex
; RUN: readelf -x .warp.iutab tab.img | grep 0x | cmp - want.hex
;
; The timing fingerprint covers the table: a flow-controlled image whose table was
; changed after linking runs with run-time waits (and reads the new entry: x[0] gets
; vals[1]).
; RUN: sed 's/^        .cells  0, 1$/&\n        .flowctl/' %s > fc.s
; RUN: warp-as -o fc.o fc.s && warp-ld -e main -o fc.img fc.o
; RUN: readelf -h fc.img | FileCheck --check-prefix=FLAGS %s
; FLAGS: Flags: 0x4
; RUN: warp-sim fc.img --in x=x 2>fc.err | FileCheck --check-prefix=OUT %s
; RUN: FileCheck --check-prefix=TIMED --allow-empty %s < fc.err
; TIMED-NOT: warning
; RUN: python3 %S/../malformed/Inputs/elfedit.py fc.img fc2.img 'bytes[.warp.iutab]+0=04000000'
; RUN: warp-sim fc2.img --in x=x 2>fc2.err | FileCheck --check-prefix=CHANGED %s
; CHANGED: 203
; CHANGED-NEXT: 210
; RUN: FileCheck --check-prefix=WARN %s < fc2.err
; WARN: warning: the image is not the one the linker timed (it was changed since)
;
; Only the IU has the table; only the Warp has an IU; it holds 1024 entries; one
; object gives it; an offset outside it faults.
; RUN: printf '        .model warp\nmain:   tld r1, [r0, 0]\n' > cell.s
; RUN: not warp-as -o cell.o cell.s 2>&1 | FileCheck --check-prefix=CELL %s
; CELL: cell.s:2:9: error: only the interface unit has the address table that 'tld' reads (after '||'); it sends the cells what they need on @adr
; RUN: printf '        .model iwarp\n        .iutable 1, 2\n' > iw.s
; RUN: not warp-as -o iw.o iw.s 2>&1 | FileCheck --check-prefix=IW %s
; IW: iw.s:2:9: error: the iwarp model has no interface unit address table
; RUN: python3 -c "print('        .iutable ' + ', '.join(['7'] * 1025))" > big.s
; RUN: not warp-as -o big.o big.s 2>&1 | FileCheck --check-prefix=BIG %s
; BIG: big.s:1:3090: error: more than 1024 entries in the interface unit's address table
; RUN: printf '        .iutable 5\n        .text\nother:  halt\n' > two.s
; RUN: warp-as -o two.o two.s
; RUN: not warp-ld -e main -o two.img tab.o two.o 2>&1 | FileCheck --check-prefix=TWO %s
; TWO: warp-ld: two.o: a second interface unit address table (.warp.iutab): one object gives it
; RUN: printf '        .model warp\n        .cells 0, 0\n        .text\n        .globl main\nmain:   nop || mov r1, 4096\n        nop || tld r2, [r1, 0]\n        halt\n' > out.s
; RUN: warp-as -o out.o out.s && warp-ld -e main -o out.img out.o
; RUN: not warp-sim out.img 2>&1 | FileCheck --check-prefix=OUTSIDE %s
; OUTSIDE: fault: cell 0 (cid 0): pc 1: interface unit tld at table offset 0x1000 is outside the table (its address table holds 1024 entries, 4096 bytes)
; A table that is not whole entries, or in an iWarp image, is a bad image.
; RUN: python3 %S/../malformed/Inputs/elfedit.py tab.img bad.img 'shdr[.warp.iutab].sh_size=5'
; RUN: not warp-sim bad.img --in x=x 2>&1 | FileCheck --check-prefix=BAD %s
; BAD: warp-sim: bad.img: section .warp.iutab has 5 bytes: the interface unit's address table holds up to 1024 32-bit entries
; RUN: printf '        .iutable 1\n' > t1.s
; RUN: printf '        .text\n        .globl main\nmain:   halt\n' > m.s
; RUN: warp-as -o t1.o t1.s && warp-as -mcpu=iwarp -o m.o m.s
; RUN: not warp-ld -e main -o iw.img m.o t1.o 2>&1 | FileCheck --check-prefix=IWLD %s
; IWLD: warp-ld: t1.o: an interface unit address table (.warp.iutab) needs the Warp model
        .model  warp
        .cells  0, 1
        .file   "iu-table.s"
        .host   x, in, int, 8
        .host   y, out, int, 8
        .iutable 0, 16, 8, 24, 4, 20, 12, 28
        .data
vals:   .word   100, 101, 102, 103, 104, 105, 106, 107
        .text
        .globl  main
main:   nop || mv r1, x | mv r2, y
        nop || mov r3, 8 | mov r6, 0
        ; tld's result lands two clocks on (the IU does not wait for it)
.L:     nop || tld r4, [r6, 0] | hld @fxl, [r1] | isub r3, r3, 1
        nop || iadd r6, r6, 4 | lea r1, [r1, 4]
        nop || mv @adr, r4
        nop || mov @adr, r3
        ld r5, [@adr, vals]
        nop
        iadd @xr, @xl, r5 || mov @axr, r2 | iadd r2, r2, 4
        bnz @adr, .L
        halt

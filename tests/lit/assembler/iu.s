; The Warp interface unit's part of a bundle follows '||': the IU reads the host, feeds
; the left end cell's queue and gives the host the address of each word leaving the
; right end, with registers of its own (the cells' r1 is their loop counter, the IU's
; r1 the address of the next x). The cells hold no host operation. warp-as puts the
; IU's bundles in .warp.iu, parallel to .text, warp-ld links them into the image and
; warp-sim runs IU bundle i beside each end cell's bundle i.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: readelf -S %t.o | FileCheck --check-prefix=OBJ %s
; OBJ: .warp.iu PROGBITS 00000000 {{[0-9a-f]+}} 0000c8 28
; OBJ: .rela.warp.iu RELA
; RUN: readelf -S %t.img | FileCheck --check-prefix=IMG %s
; IMG: .warp.iu PROGBITS 00000000 {{[0-9a-f]+}} 0000c8 28
; RUN: printf '1\n2\n3\n4\n' > %t.x
; RUN: warp-sim %t.img --in x=%t.x --stats 2>%t.stats | FileCheck --check-prefix=OUT %s
; OUT: 5.5
; OUT-NEXT: 6.5
; OUT-NEXT: 7.5
; OUT-NEXT: 8.5
; RUN: FileCheck --check-prefix=STATS %s < %t.stats
; STATS: cell 0 (cid 0): issued 14, stalls 0 (queue 0, unit 0), FA 13.3%, FM 0.0%, ALU 0.0%, MEM 0.0%
; STATS: iu (cell 0's end): bundles 9, words into the array 4, host addresses 0, clocks held by the link 0
; STATS-NEXT: iu (cell 2's end): bundles 9, words into the array 0, host addresses 4, clocks held by the link 0
; STATS-NEXT: iu link: 4 words in, 4 out in 30 cycles (the seed's link: a word in and a word out a cycle); host: 8 words, 16 cycles at 10 MB/s
;
; What the IU has not got is refused where it is written.
; RUN: not warp-as -o %t.bad.o %S/Inputs/iu-errors.s 2>&1 | FileCheck --check-prefix=ERR %s
; ERR: iu-errors.s:3:17: error: the interface unit has no unit for 'fadd'
; ERR: iu-errors.s:4:17: error: the interface unit has no branches
; ERR: iu-errors.s:5:17: error: the interface unit has no data memory for 'ld'
; ERR: iu-errors.s:6:17: error: the interface unit reads registers and literals only
; ERR: iu-errors.s:7:17: error: the interface unit writes registers, host feeds, host addresses and the address path only
; ERR: iu-errors.s:8:17: error: the interface unit reads registers and literals only
; RUN: printf '        .model iwarp\nmain:   nop || mv r1, 2\n' > %t.iwarp.s
; RUN: not warp-as -o %t.iwarp.o %t.iwarp.s 2>&1 | FileCheck --check-prefix=IWARP %s
; IWARP: error: only the Warp has an interface unit ('||' part)
        .model  warp
        .cells  0, 2
        .file   "iu.s"
        .host   x, in, float, 4
        .host   y, out, float, 4
        .text
        .globl  main
main:   mv r1, 4 || mv r1, x | mv r2, y
.L:     nop || hld @fxl, [r1] | lea r1, [r1, 4]
        nop
        fadd @xr, @xl, 1.5 | dbnz r1, .L || mov @axr, r2 | iadd r2, r2, 4
        halt

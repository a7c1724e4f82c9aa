; The Warp's address path (seed 002, sections 2 and 4.2; warp_ops.def's WT_PATH row):
; the interface unit writes up to two words a cycle into the first cell's 128-word
; @adr queue, and each cell passes a word it reads on to the next, so all four cells
; read the same words: here an addend (100) and the loop-control word the IU counts
; down, which the cells branch on (bnz @adr) instead of keeping a counter.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: printf '1\n2\n3\n4\n' > %t.x
; RUN: warp-sim %t.img --in x=%t.x --stats 2>%t.stats | FileCheck --check-prefix=OUT %s
; OUT: 401
; OUT-NEXT: 402
; OUT-NEXT: 403
; OUT-NEXT: 404
; RUN: FileCheck --check-prefix=STATS %s < %t.stats
; STATS: address path @adr: 8 words from the iu (2 a cycle at most), 32 reads by the cells, fullest queue 2 of 128 words
;
; The disassembler prints @adr as the assembler reads it.
; RUN: warp-objdump -d %t.o | FileCheck --check-prefix=DIS %s
; DIS: nop || isub r3, r3, 1 | hld @fxl, [r1, r0] | lea r1, [r1, 4] | mv @adr, r4
; DIS-NEXT: nop || mov @adr, r3
; DIS-NEXT: iadd @xr, @xl, @adr || mov @axr, r2 | iadd r2, r2, 4
; DIS-NEXT: bnz @adr, {{.*}}
;
; Only the IU writes the path; the iWarp has none.
; RUN: printf '        .model warp\nmain:   mov @adr, r1\n' > %t.cellw.s
; RUN: not warp-as -o %t.cellw.o %t.cellw.s 2>&1 | FileCheck --check-prefix=CELLW %s
; CELLW: :2:13: error: only the interface unit writes @adr (after '||'); a cell reads it and passes each word on to the next
; RUN: printf '        .model iwarp\nmain:   iadd r1, @adr, 1\n' > %t.iw.s
; RUN: not warp-as -o %t.iw.o %t.iw.s 2>&1 | FileCheck --check-prefix=IW %s
; IW: :2:18: error: @adr is the address path of the warp model; iwarp has none
;
; The queue holds 128 words: the IU's 129th and 130th hold the first cell, which
; has not read any, and the run deadlocks naming the queue.
; RUN: warp-as -o %t.full.o %S/Inputs/adr-full.s && warp-ld -e main -o %t.full.img %t.full.o
; RUN: not warp-sim %t.full.img --stats 2>&1 | FileCheck --check-prefix=FULL %s
; FULL: deadlock at cycle 66
; FULL: cell 0 (cid 0): pc 1: waits for room for its interface unit's words (a queue it feeds from the host, or @adr, is full)
; FULL: cell 1 (cid 1): pc 2: waits to read @adr (its address queue is empty); cell 0 passes each word it reads there on to it
; FULL: address path @adr: 128 words from the iu (2 a cycle at most), 0 reads by the cells, fullest queue 128 of 128 words
; RUN: warp-as -o %t.empty.o %S/Inputs/adr-empty.s && warp-ld -e main -o %t.empty.img %t.empty.o
; RUN: not warp-sim %t.empty.img 2>&1 | FileCheck --check-prefix=EMPTY %s
; EMPTY: cell 0 (cid 0): pc 2: waits to read @adr (its address queue is empty); only the interface unit writes it
;
; Two words a cycle: a bundle writing three holds the cell a second clock (6 cycles
; where two words take 5).
; RUN: warp-as -o %t.rate.o %S/Inputs/adr-rate.s && warp-ld -e main -o %t.rate.img %t.rate.o
; RUN: warp-sim %t.rate.img --stats 2>&1 | FileCheck --check-prefix=RATE3 %s
; RATE3: cycles: 6
; RUN: sed 's/ | mv @adr, r1//' %S/Inputs/adr-rate.s > %t.rate2.s
; RUN: warp-as -o %t.rate2.o %t.rate2.s && warp-ld -e main -o %t.rate2.img %t.rate2.o
; RUN: warp-sim %t.rate2.img --stats 2>&1 | FileCheck --check-prefix=RATE2 %s
; RATE2: cycles: 5
        .model  warp
        .cells  0, 3
        .file   "address-path.s"
        .host   x, in, int, 4
        .host   y, out, int, 4
        .text
        .globl  main
main:   nop || mv r1, x | mv r2, y
        nop || mov r3, 4 | mov r4, 100
.L:     nop || hld @fxl, [r1] | lea r1, [r1, 4] | mv @adr, r4 | isub r3, r3, 1
        nop || mov @adr, r3
        iadd @xr, @xl, @adr || mov @axr, r2 | iadd r2, r2, 4
        bnz @adr, .L
        halt

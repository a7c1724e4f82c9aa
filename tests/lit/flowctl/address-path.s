; Compile-time flow control times the Warp's address path: each cell passes a word it
; reads on @adr to the next a mv's latency and a link later (2 clocks), so the linker
; skews the cells by 2 where nothing else needs a skew, and the flow-controlled run
; (any wait a compiler bug) gives the results of a run that may wait.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: readelf -p .warp.cells %t.img | FileCheck --check-prefix=SKEW %s
; SKEW: 0 3 2 {{[0-9a-f]+}}
; RUN: printf '1\n2\n3\n4\n' > %t.x
; RUN: warp-sim %t.img --in x=%t.x | FileCheck --check-prefix=OUT %s
; OUT: 401
; OUT-NEXT: 406
; OUT-NEXT: 411
; OUT-NEXT: 416
;
; Loop control on the IU: the cells branch on the count the IU sends (bnz @adr); flow
; control runs the IU's registers beside the first cell, so the trip count is known.
; RUN: warp-as -o %t.loop.o %S/Inputs/adr-loop.s && warp-ld -e main -o %t.loop.img %t.loop.o
; RUN: readelf -p .warp.cells %t.loop.img | FileCheck --check-prefix=SKEW %s
; RUN: warp-sim %t.loop.img --in x=%t.x --stats 2>%t.loop.stats | FileCheck --check-prefix=LOOP %s
; LOOP: 401
; LOOP-NEXT: 402
; LOOP-NEXT: 403
; LOOP-NEXT: 404
; RUN: FileCheck --check-prefix=LOOPSTATS %s < %t.loop.stats
; LOOPSTATS: cell 3 (cid 3): issued 19, stalls 0 (queue 0,
; A count the IU computes from the host's data is data to the cells: refused.
; RUN: sed 's/mov r3, 4 | mov r4, 100/hld r3, [r1] | mov r4, 100\n        nop/' %S/Inputs/adr-loop.s > %t.data.s
; RUN: warp-as -o %t.data.o %t.data.s
; RUN: not warp-ld -e main -o %t.data.img %t.data.o 2>&1 | FileCheck --check-prefix=DATA %s
; DATA: error: this loop runs a number of times that depends on data
;
; The interface unit fills the first cell's queue as it fills the host-fed ones: a word
; read before it lands, or more than 128 written ahead of their reads, is refused.
; RUN: warp-as -o %t.late.o %S/Inputs/adr-late.s
; RUN: not warp-ld -e main -o %t.late.img %t.late.o 2>&1 | FileCheck --check-prefix=LATE %s
; LATE: error: the interface unit's word for this read of @adr lands too late
; RUN: warp-as -o %t.over.o %S/Inputs/adr-over.s
; RUN: not warp-ld -e main -o %t.over.img %t.over.o 2>&1 | FileCheck --check-prefix=OVER %s
; OVER: error: the interface unit writes more than 128 words to @adr ahead of their reads
        .model  warp
        .cells  0, 3
        .flowctl
        .file   "address-path.s"
        .host   x, in, int, 4
        .host   y, out, int, 4
        .text
        .globl  main
main:   mov r1, 4 || mv r1, x | mv r2, y
        nop || mov r4, 100
.L:     nop || hld @fxl, [r1] | lea r1, [r1, 4] | mv @adr, r4 | iadd r4, r4, 1
        nop
        iadd @xr, @xl, @adr | dbnz r1, .L || mov @axr, r2 | iadd r2, r2, 4
        halt

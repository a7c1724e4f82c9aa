; Double precision on iWarp (seed 000, sec. 1: 10 MFLOPS): a double lives in a
; register pair named by its even first register, low word first (unit.simulator
; test_double_precision checks the values). The multiplier takes a double every
; fourth clock: the second ftod waits 3 clocks for it, dmul 3 more.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: warp-sim --stats %t.img 2>&1 | FileCheck %s
; CHECK: cell 0 (cid 0): issued 10, stalls 6 (queue 0, unit 6)
; RUN: warp-objdump -d %t.img | FileCheck --check-prefix=DIS %s
; DIS: ftod r2, r10
; DIS: dmul r8, r2, r4
; DIS: dadd r6, r8, r2
;
; The Warp cell has no double precision: the simulator stops at the first one.
; RUN: sed -e 's/model iwarp/model warp/' %s > %t.warp.s
; RUN: warp-as -o %t.warp.o %t.warp.s && warp-ld -e main -o %t.warp.img %t.warp.o
; RUN: not warp-sim %t.warp.img 2>&1 | FileCheck --check-prefix=WARP %s
; WARP: double precision (dadd, dmul ...) is iWarp's; the Warp cell's data path is 32 bits
;
; Operands must be pairs.
; RUN: sed -e 's/dmul r8, r2, r4/dmul r9, r2, r4/' %s > %t.odd.s
; RUN: not warp-as -o %t.odd.o %t.odd.s 2>&1 | FileCheck --check-prefix=ODD %s
; ODD: error: 'dmul' takes a double in a register pair, named by its first register (r2, r4 ... r62), not 'r9'
        .model iwarp
        .cells 0, 0
        .text
        .globl main
main:   mv r10, 1.5 | mv r11, 2.25
        ftod r2, r10
        ftod r4, r11
        dmul r8, r2, r4
        nop                     ; its product lands 5 clocks later
        nop
        nop
        nop
        dadd r6, r8, r2
        halt

; Phased connection sets (seed 003, sections 2 and 4.2) run by the iWarp cells: the
; plan warp-conset wrote (cs_plan: phases, routes and each cell's order, from the
; communication compiler of conset/) drives a communication context switch before
; every phase and the phase's streaming transfers. docs/design.md, section 12.
;
; A context switch, on every cell: quiesce (its transfers of the phase are over:
; each send's spool stopped and its end marker written, each receive's spool
; stopped), a global synchronisation (a dissemination barrier: in round r, a token
; pathway to the cell 2^r further on, and a wait for the one from 2^r before; log2
; of the cells rounds), then the new context: the pathways of the connections it
; starts, opened along their planned routes in the scheduler's order. A destination
; binds a spool to each arriving connection at once, from any point of its loop.
; Connections use the reservation pool only, where the plan never puts more on a
; bus than it has channels; tokens use the open pool, and fit a channel's queue.
;
; Run with --channels 3,1 (three reservation channels a bus, as the plan's bus
; capacity; local channels 16 to 19). Calls: r1..r31 clobbered, r32..r63 kept.
; A connection's slots are its place among its source's connections, in the order
; the communication compiler was given, and its place among its destination's.
;   cs_run   r1 = send buffer, r2 = receive buffer, r3 = words a connection (at
;            least 1), r4 = bytes between slots (0: every connection uses the same
;            words), r5 = the plan (cs_plan, from warp-conset).
;   cs_run_posted  r1 = send table, r2 = receive table, r3 = the plan: slot s's
;            block is the table's words 2s (address) and 2s+1 (words); a send of
;            no words (not posted) faults, and so does a receive of fewer words
;            than its sender sends (W2's sendcon and receivecon post them).
; The sender's first word is its number of words, so that the receiver knows.
        .model  iwarp
        .file   "conset.s"
        .data
__cs_sb:        .word 0
__cs_rb:        .word 0
__cs_k:         .word 0
__cs_stride:    .word 0
__cs_mode:      .word 0     ; 0: buffers and a stride, 1: tables of posted blocks
__cs_lfree:     .word 0     ; bit g: local channel 16+g and spool gate g free (g < 3)
__cs_ifree:     .word 0     ; bit g: receiving spool gate g free (3..7)
__cs_active:    .word 0     ; sends whose spool runs or whose end is not written
__cs_rdone:     .word 0     ; receives finished, all phases
__cs_acks:      .word 0     ; this cell's acknowledgement tokens, by receive slot
__cs_gslot:     .zero 12    ; the send slot of the connection on gate g
__cs_gstate:    .zero 12    ; gate g: bit 0 its spool stopped, bit 1 acknowledged
__cs_pahead:    .word 0
__cs_patail:    .word 0
__cs_tok:       .zero 64    ; tokens arrived and not yet waited for, a count a round
__cs_pa:        .zero 256   ; arrivals waiting for a spool gate: (channel, slot)
        .text
        .globl  cs_run
        .globl  cs_run_posted

cs_run:
        mv r6, 0
        jmp __cs_go
cs_run_posted:
        mv r5, r3 | mv r6, 1
__cs_go:
        .loc    58
        st [r0, __cs_sb], r1 | st [r0, __cs_rb], r2
        st [r0, __cs_k], r3 | st [r0, __cs_stride], r4
        st [r0, __cs_mode], r6 | mv r27, r5
        mv r5, 7
        mv r6, 248
        st [r0, __cs_lfree], r5 | st [r0, __cs_ifree], r6
        st [r0, __cs_active], r0 | st [r0, __cs_rdone], r0
        st [r0, __cs_pahead], r0 | st [r0, __cs_patail], r0
        mv r5, -1
        st [r0, __cs_gslot], r5 | st [r0, __cs_gslot+4], r5
        st [r0, __cs_gslot+8], r5
        ; connection begins (8), unroutable pathways (7), spools (6)
        mv %evmask, 0x1c0
        ; r16: phases, r17: barrier rounds, r18: this cell's tokens, r19: its phases
        ld r16, [r27, 0] | ld r17, [r27, 8]
        ld r7, [r27, 12]
        nop
        isub r7, cid, r7
        shl r7, r7, 2
        iadd r7, r7, r27
        ld r18, [r7, 16]
        nop
        iadd r18, r18, r27 | shl r8, r17, 4
        ; the block: receive slots, tokens (r18), acknowledgements, phases (r19)
        ld r9, [r18, 0] | iadd r18, r18, 4
        iadd r10, r18, r8
        st [r0, __cs_acks], r10
        shl r9, r9, 4
        iadd r19, r10, r9
        ; r20: receives expected up to this phase
        mv r20, 0
.Lphase:
        bz r16, .Ldone
        call __cs_barrier
        ld r21, [r19, 0] | ld r8, [r19, 4]
        iadd r22, r19, 8
        nop
        ; r21: sends not started, r22: the next (after the last: the next phase)
        iadd r20, r20, r8
.Lwork:
        ld r1, [r0, __cs_lfree] | ld r2, [r0, __cs_active]
        ld r3, [r0, __cs_rdone]
        bz r21, .Lstarted
        bz r1, .Lwait
        call __cs_start
        isub r21, r21, 1
        jmp .Lwork
.Lstarted:
        bnz r2, .Lwait
        ilt r4, r3, r20
        bz r4, .Lnext
.Lwait:
        call __cs_poll
        jmp .Lwork
.Lnext:
        mv r19, r22 | isub r16, r16, 1
        jmp .Lphase
.Ldone:
        ret

; Opens the connection at r22 ([slot, n, n routing words]) on the lowest free local
; channel (r1: the free mask), sends its number of words and spools the words
; out, and moves r22 past it.
__cs_start:
        .loc    123
        and r2, r1, 1
        mv r3, 0
        bnz r2, .Lgate
        and r2, r1, 2
        mv r3, 1
        bnz r2, .Lgate
        mv r3, 2
.Lgate:
        mv r4, 1
        shl r4, r4, r3
        xor r1, r1, r4 | ld r5, [r22, 4]
        st [r0, __cs_lfree], r1 | ld r2, [r0, __cs_active]
        ld r13, [r22, 0] | shl r14, r3, 2
        ld r11, [r0, __cs_mode] | ld r12, [r0, __cs_sb]
        st [r14, __cs_gslot], r13 | st [r14, __cs_gstate], r0
        ; the block: r10 its address, r12 its words
        bz r11, .Lstride
        shl r10, r13, 3
        iadd r10, r10, r12
        ld r12, [r10, 4] | ld r10, [r10, 0]
        jmp .Lblock
.Lstride:
        ld r11, [r0, __cs_stride] | ld r15, [r0, __cs_k]
        nop
        imul r10, r13, r11
        nop
        iadd r10, r10, r12 | mv r12, r15
.Lblock:
        ilt r11, r12, 1
        .loc    153
        bnz r11, __cs_unposted
        shl r14, r12, 2
        iadd r14, r14, r10 | iadd r6, r3, 16
        ld r7, [r22, 8] | ld r8, [r22, 12]
        iadd r2, r2, 1 | iadd r9, r22, 16
        .loc    159
        mv %go0, r6
        pbegin @g0, r7
        isub r5, r5, 2
        mv @g0, r8
.Lhdr:
        bz r5, .Lhdr_done
        ld r15, [r9, 0]
        iadd r9, r9, 4 | isub r5, r5, 1
        mv @g0, r15
        jmp .Lhdr
.Lhdr_done:
        mv @g0, r12
        st [r0, __cs_active], r2 | mv r22, r9
        or r15, r6, 32
        mv %go0, -1
        mv %sps, r3
        mv %spa, r10
        mv %spl, r14
        mv %spn, r12
        mv %spc, r15
        ret

; Faults on purpose (a misaligned load), so that the simulator names the line:
; a send of no words (a sendcon not posted before its instantiate)...
__cs_unposted:
        .loc    185
        ld r1, [r0, 2]
        ret
; ...and a receive shorter than its sender's words (or not posted).
__cs_short:
        .loc    190
        ld r1, [r0, 2]
        ret

; A barrier: round r sends a token to the cell 2^r on and waits for the one from
; 2^r before (a count a round: a fast cell's token of the next barrier may come
; early). Tokens go out through gate 0 on local channel 19.
__cs_barrier:
        .loc    198
        mv r24, 0 | mv r25, r18
.Lround:
        ieq r1, r24, r17
        bnz r1, .Lbarrier_done
        ld r2, [r25, 0] | ld r3, [r25, 4]
        ld r4, [r25, 8] | ld r5, [r25, 12]
        nop
        .loc    206
        mv %go0, 19
        pbegin @g0, r3
        ieq r6, r2, 2
        mv @g0, r4
        bnz r6, .Ltok_end
        mv @g0, r5
.Ltok_end:
        pend @g0, 0
        shl r26, r24, 2
        nop
        mv %go0, -1
.Ltok_wait:
        ld r7, [r26, __cs_tok]
        nop
        bnz r7, .Ltok_have
        call __cs_poll
        jmp .Ltok_wait
.Ltok_have:
        isub r7, r7, 1
        st [r26, __cs_tok], r7
        iadd r24, r24, 1 | iadd r25, r25, 16
        jmp .Lround
.Lbarrier_done:
        ret

; Waits for one event and acts on it; r1..r15 only.
__cs_poll:
        .loc    234
        evwait r1
        shr r2, r1, 8 | and r3, r1, 255
        mv r4, %evdata
        ieq r5, r2, 8
        bnz r5, .Lev_begin
        ieq r5, r2, 6
        bnz r5, .Lev_spool
        ; kind 7: a pathway no cell could route: a fault, naming this line
        ld r1, [r0, 2]
        ret
.Lev_begin:
        shr r5, r4, 16
        and r6, r5, 0x8000
        and r7, r5, 0x4000
        bnz r7, .Lev_ack
        bz r6, .Lev_conn
        and r5, r5, 15
        shl r5, r5, 2
        ld r6, [r5, __cs_tok]
        nop
        iadd r6, r6, 1
        st [r5, __cs_tok], r6
        ret
.Lev_conn:
        ld r6, [r0, __cs_ifree]
        nop
        bnz r6, __cs_bind
        ; no receiving spool gate free: listed until one stops
        ld r7, [r0, __cs_patail]
        nop
        and r8, r7, 31
        shl r8, r8, 3 | iadd r7, r7, 1
        st [r8, __cs_pa], r3 | st [r8, __cs_pa+4], r5
        st [r0, __cs_patail], r7
        ret
.Lev_ack:
        ; the destination of the connection on one of gates 0..2 has bound a spool
        and r5, r5, 0x3fff
        ld r6, [r0, __cs_gslot] | ld r7, [r0, __cs_gslot+4]
        mv r8, 0
        ieq r6, r6, r5
        bnz r6, .Lack_gate
        ieq r7, r7, r5 | mv r8, 1
        bnz r7, .Lack_gate
        mv r8, 2
.Lack_gate:
        mv r9, 2
        jmp .Lgate_state
.Lev_spool:
        and r5, r4, 255
        ilt r6, r5, 3
        bz r6, .Lev_received
        mv r8, r5 | mv r9, 1
.Lgate_state:
        ; r8: the gate, r9: what happened to it; both done: end the pathway
        shl r10, r8, 2
        ld r11, [r10, __cs_gstate]
        nop
        or r11, r11, r9
        st [r10, __cs_gstate], r11
        ieq r12, r11, 3
        bz r12, .Lev_ret
        ; a send's words have all gone and its destination drains them: end its pathway
        mv r5, r8
        iadd r6, r5, 16
        mv r7, 1
        .loc    301
        mv %go0, r6
        pend @g0, 0
        shl r7, r7, r5 | ld r8, [r0, __cs_lfree]
        ld r9, [r0, __cs_active]
        mv %go0, -1
        or r8, r8, r7
        isub r9, r9, 1
        st [r0, __cs_lfree], r8 | st [r0, __cs_active], r9
        ret
.Lev_received:
        ld r6, [r0, __cs_ifree] | ld r7, [r0, __cs_rdone]
        mv r8, 1
        shl r8, r8, r5
        or r6, r6, r8 | iadd r7, r7, 1
        st [r0, __cs_ifree], r6 | st [r0, __cs_rdone], r7
        ld r9, [r0, __cs_pahead] | ld r10, [r0, __cs_patail]
        nop
        ieq r11, r9, r10
        bnz r11, .Lev_ret
        and r8, r9, 31
        shl r8, r8, 3 | iadd r9, r9, 1
        ld r3, [r8, __cs_pa] | ld r5, [r8, __cs_pa+4]
        st [r0, __cs_pahead], r9
        jmp __cs_bind
.Lev_ret:
        ret

; Binds the lowest free receiving spool gate (r6: the free mask) to channel r3 for
; the receive slot r5, after reading the sender's number of words, and sends the
; source its acknowledgement token.
__cs_bind:
        .loc    333
        mv r7, 3
.Lbind_find:
        shr r8, r6, r7
        and r8, r8, 1
        bnz r8, .Lbind_got
        iadd r7, r7, 1
        jmp .Lbind_find
.Lbind_got:
        mv r8, 1
        shl r8, r8, r7 | ld r9, [r0, __cs_rb]
        xor r6, r6, r8 | ld r10, [r0, __cs_stride]
        ld r11, [r0, __cs_k] | st [r0, __cs_ifree], r6
        ld r12, [r0, __cs_mode]
        mv %gi0, r3
        mv r15, @g0
        mv %gi0, -1
        bz r12, .Lbind_stride
        shl r10, r5, 3
        iadd r10, r10, r9
        ld r11, [r10, 4] | ld r10, [r10, 0]
        jmp .Lbind_block
.Lbind_stride:
        imul r10, r10, r5
        nop
        iadd r10, r10, r9
.Lbind_block:
        ilt r12, r11, r15
        .loc    361
        bnz r12, __cs_short
        shl r12, r15, 2
        iadd r12, r12, r10
        mv %sps, r7
        mv %spa, r10
        mv %spl, r12
        mv %spn, r15
        mv %spc, r3
        ; acknowledge: the source may end its pathway once its words have gone
        ld r13, [r0, __cs_acks] | shl r14, r5, 4
        nop
        iadd r13, r13, r14
        ld r1, [r13, 0] | ld r2, [r13, 4]
        ld r3, [r13, 8] | ld r4, [r13, 12]
        nop
        mv %go0, 19
        pbegin @g0, r2
        ieq r6, r1, 2
        mv @g0, r3
        bnz r6, .Lack_end
        mv @g0, r4
.Lack_end:
        pend @g0, 0
        nop
        nop
        mv %go0, -1
        ret

/* Layout: every block that continues into a block other than the next one gets a
 * branch there. A conditional branch whose target is the next block is inverted
 * instead; one whose neither side is next gets a block with a jump after it (one
 * branch a bundle). A jump to the next block is dropped. A call's continuation is
 * always laid out right after it by selection. */
#include "mir.h"

#include <stdlib.h>

void wb_layout(wb_func *f)
{
    int n = f->norder;
    int *old = ws_xcalloc((size_t)n, sizeof *old);
    for (int k = 0; k < n; k++) old[k] = f->order[k];
    f->norder = 0;
    for (int k = 0; k < n; k++) {
        int id = old[k], next = k + 1 < n ? old[k + 1] : -1;
        wb_place_block(f, id);
        wb_block *b = f->blocks[id];
        if (wb_flow(b->term.op) == WT_FLOW_JUMP) {
            b->fall = b->term.target;
            b->term.op = WT_OP_NONE;
        }
        if (b->fall < 0 || b->fall == next) continue;
        if (b->term.op == WT_OP_NONE) {
            b->term.op = (uint16_t)wb_jump_op();
            b->term.target = b->fall;
            b->fall = -1;
        } else if (wb_is_cond_branch(b->term.op) && b->term.target == next &&
                   wb_inverse_branch(b->term.op) != WT_OP_NONE) {
            b->term.op = (uint16_t)wb_inverse_branch(b->term.op);
            b->term.target = b->fall;
            b->fall = next;
        } else if (wb_branches(b->term.op)) {
            /* A branch taken elsewhere (or one the table cannot invert; a jump is
             * gone above): a jump after it to where it falls. */
            int jb = wb_new_block(f);
            wb_place_block(f, jb);
            b = f->blocks[id];
            f->blocks[jb]->term.op = (uint16_t)wb_jump_op();
            f->blocks[jb]->term.target = b->fall;
            b->fall = jb;
        } else {
            wb_internal_error_at(f, &b->term, "block %d must fall through after it", id);
        }
    }
    free(old);
}

/* beacon-ostd: the OSS collector, the Lustre target server
 * (collectors/lustresrv) in its OST role. */
#ifndef BCN_OSTD_H
#define BCN_OSTD_H

#include "common/program.h"

/* The program (common/program.h). */
extern const struct bcn_program bcn_ostd_program;

#endif

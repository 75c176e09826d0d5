/* beacon-mdsd: the MDS collector, the Lustre target server
 * (collectors/lustresrv) in its MDT role. */
#ifndef BCN_MDSD_H
#define BCN_MDSD_H

#include "common/program.h"

/* The program (common/program.h). */
extern const struct bcn_program bcn_mdsd_program;

#endif

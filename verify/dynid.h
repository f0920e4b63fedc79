/* SPDX-License-Identifier: MIT */
/* dynid: the library's one header. Everything a program needs to load a
 * model, compute its dynamics, identify base parameters from logs (least
 * squares, consistent and plausible) and validate them:
 *     #include <dynid/dynid.h>
 *     cc prog.c $(pkg-config --cflags --libs dynid)
 * Layers (README.md): core (models, readers, dynamics) <- ident (a model
 * from data) <- verify (the model against data, the papers' algorithms). */
#ifndef DYNID_DYNID_H
#define DYNID_DYNID_H

#include "core/model.h"
#include "core/dynamics.h"
#include "core/io.h"
#include "core/lin_const.h"

#include "ident/regressor.h"
#include "ident/base.h"
#include "ident/quality.h"
#include "ident/filter.h"
#include "ident/log.h"
#include "ident/estimate.h"
#include "ident/identify.h"
#include "ident/consistent.h"
#include "ident/params.h"
#include "ident/stats.h"
#include "ident/traj.h"
#include "ident/excite.h"

#include "verify/validate.h"
#include "verify/sim.h"
#include "verify/ne_base.h"
#include "verify/lin91.h"
#include "verify/lin_inertia.h"
#include "verify/renaud.h"
#include "verify/saha.h"
#include "verify/opcount.h"

#endif

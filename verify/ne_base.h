/* SPDX-License-Identifier: MIT */
/* dynid verify: Newton-Euler inverse dynamics on base parameters.
 *
 * Renaud's augmented bodies ([Renaud]) and Khalil's base-parameter form:
 * the grouping of the inertial parameters into minimal linear combinations
 * makes some standard parameters structurally zero in the realisation
 * pi = P beta of an identified (or nominal) base-parameter vector (e.g. for
 * a revolute joint j of the khalil set YY_j, MZ_j and M_j are grouped into
 * XXR_j and into link j-1; link 1 keeps only ZZR_1 when z_0 is vertical).
 * A plan (dyv_nebase_make) records, once per model and base set, which
 * parameters are structurally zero and which geometric constants are
 * special (alpha in {0, +-pi/2, pi}, O_j on the previous axis), and the
 * recursion then runs specialised code that never touches those terms:
 *   forward   w_j = R^T w_{j-1} + qd_j z          (revolute)
 *             wd_j = R^T wd_{j-1} + qdd_j z + (R^T w_{j-1}) x qd_j z
 *             U_j = [wd_j x] + [w_j x][w_j x]     (Khalil's 3x3 U matrix)
 *             vd_j = R^T (vd_{j-1} + U_{j-1} p_j)
 *                    (+ qdd_j z + 2 (R^T w_{j-1}) x qd_j z if prismatic)
 *             F_j = M_j vd_j + U_j MS_j
 *             N_j = J_j wd_j + w_j x (J_j w_j) + MS_j x vd_j
 *   (U p and U MS use only the nonzero components of p and MS; for a
 *   diagonal J, w x J w = ((ZZ-YY) w_y w_z, (XX-ZZ) w_x w_z, (YY-XX) w_x w_y)
 *   reuses the products of U)
 *   backward  f_j = F_j + R f_{j+1},  n_j = N_j + R n_{j+1} + p_{j+1} x R f_{j+1}
 *             tau_j = z . n_j (revolute) or z . f_j (prismatic)
 *                     + IA qdd + FV qd + FC sign(qd) + FO
 * with R = R_{j-1,j} = Rx(alpha_j) Rz(theta_j) applied in factored form
 * (never built) and vd_0 = -g. Frames, units and parameter order are those
 * of core/model.h.
 * Customised as Khalil's symbolic model is: the code of each joint is
 * specialised at compile time for its twist class (0, +-pi/2, pi, general)
 * and, for the common kinds (revolute, special twist, link with only XX XY
 * XZ YZ ZZ MX MY nonzero as in the khalil set's realisation, each pattern of
 * p_{j+1}), for all its flags (fkind, bkind: chosen at plan time); the
 * parent's rates and vd + U p are carried in registers, the theta trig
 * of a prismatic joint is a plan constant, and joint 1's sin, cos theta are
 * not computed when nothing reads them (gravity along z_0 and alpha_1 in
 * {0, pi}: only frames >= 1 are rotated into). */
#ifndef DYNID_NE_BASE_H
#define DYNID_NE_BASE_H

#include "core/model.h"
#include "core/dynamics.h"

/* per-link flags of a plan */
enum {
  DYV_NB_M    = 1 << 0,   /* mass nonzero */
  DYV_NB_MSX  = 1 << 1,   /* MX nonzero */
  DYV_NB_MSY  = 1 << 2,   /* MY nonzero */
  DYV_NB_MSZ  = 1 << 3,   /* MZ nonzero */
  DYV_NB_J    = 1 << 4,   /* some inertia entry nonzero */
  DYV_NB_JOFF = 1 << 5,   /* some product of inertia (XY XZ YZ) nonzero */
  DYV_NB_PX   = 1 << 6,   /* p_j = O_j - O_{j-1} (frame j-1) has an x component */
  DYV_NB_PY   = 1 << 7,   /* ... a y component (possible: -sin(alpha) d) */
  DYV_NB_PZ   = 1 << 8,   /* ... a z component (possible: cos(alpha) d) */
  DYV_NB_FRIC = 1 << 9,   /* some joint parameter nonzero */
  DYV_NB_YY   = 1 << 10   /* YY nonzero */
};
#define DYV_NB_MS (DYV_NB_MSX | DYV_NB_MSY | DYV_NB_MSZ)
#define DYV_NB_P (DYV_NB_PX | DYV_NB_PY | DYV_NB_PZ)

typedef struct dyvOps_ dyvOps;   /* verify/opcount.h */

typedef struct {
  const dyModel* m;         /* the model: joint types, geometry, twist constants */
  int n;
  int flags[DY_MAXJ];       /* DYV_NB_* */
  double pc[3*DY_MAXJ];     /* p_j at q_j = 0: (a, -sin(alpha) d, cos(alpha) d) */
  double ctc[DY_MAXJ], stc[DY_MAXJ];   /* cos, sin theta_j of a prismatic joint (constant) */
  int fkind[DY_MAXJ];       /* forward step compiled for the whole pattern: DYV_KIND(twist, p_{j+1}
                             * bits) (link: revolute, only XX XY XZ YZ ZZ MX MY nonzero); else
                             * DYV_KIND(twist, 7): flags read at run time (verify/kernels.h) */
  int bkind[DY_MAXJ];       /* backward step: DYV_KIND(twist, p_j bits) (revolute), or as fkind */
  int trig0;                /* joint 1's cos, sin theta are read (else skipped) */
  double g[3];              /* gravity in frame 0 */
  int nzero;                /* number of parameters treated as structurally zero */
} dyvNeBase;

/* Build a plan for model m. zero (14n entries, may be NULL): 1 where the
 * parameter is structurally zero in every vector the plan will be used
 * with; NULL means no parameter is known to be zero (nominal model). The
 * plan reads m's joint types, geometry and twist constants (dy_set_const)
 * at every call: m must outlive it, and a new plan is needed after m's
 * geometry changes. */
void dyv_nebase_make(dyvNeBase* plan, const dyModel* m, const unsigned char* zero);

/* Structural zeros of the realisation pi = P beta of a base set: zero[k] = 1
 * iff row k of P (row-major npar x nb, npar = 10n or 14n) is all zero;
 * joint parameters beyond npar are zero. zero has 14n entries. */
void dyv_nebase_zero_from_P(unsigned char* zero, const dyModel* m, const double* P,
                            int npar, int nb);

/* Zeros of a given vector (exact zeros of par, 14n): used when a
 * realisation is at hand but not its base set. */
void dyv_nebase_zero_from_par(unsigned char* zero, const dyModel* m, const double* par);

/* Inverse dynamics tau (n) [N m|N] with parameters par (14n; entries the
 * plan marks zero are not read). q, qd, qdd: n each; qd/qdd may be NULL
 * for zero. Scratch: d->f, d->nm, d->p (from dy_make_data of the plan's
 * model). Gravity: the model's at plan time. */
void dyv_nebase_rnea(const dyvNeBase* plan, dyData* d, const double* par,
                     const double* q, const double* qd, const double* qdd, double* tau);

/* The same for K states per call (verify/ne_base_batch.c), each as
 * dyv_nebase_rnea:
 *   tau_k = M(q_k) qdd_k + C(q_k,qd_k) qd_k + g(q_k)
 *           + IA qdd_k + FV qd_k + FC sign(qd_k) + FO,   k = 0..K-1
 * [N m|N] with the parameters par (14n; entries the plan marks zero are not
 * read). q, qd, qdd, tau: n*K each in the batch layout of core/dynamics.h,
 * q[j*K + k] joint j of state k (qd or qdd may be NULL for zero; tau may
 * overlap them). Scratch: w (dy_make_batch of the plan's model); no
 * allocation. Gravity: the model's at plan time. The states run in vector
 * lanes (8, 4 or 2 per vector by the instruction set), the structural
 * zeros and special twists decided per joint by branches common to all
 * lanes, and the results equal dyv_nebase_rnea's state by state, bit for
 * bit (the same operations in the same order). K <= 0 does nothing. */
void dyv_nebase_rnea_batch(const dyvNeBase* plan, dyBatch* w, const double* par, int K,
                           const double* q, const double* qd, const double* qdd, double* tau);

/* The counting variant (verify/kernels.h): the same arithmetic, the
 * operations executed added to *ops. */
void dyv_nebase_rnea_ops(dyvOps* ops, const dyvNeBase* plan, dyData* d, const double* par,
                         const double* q, const double* qd, const double* qdd, double* tau);

#endif

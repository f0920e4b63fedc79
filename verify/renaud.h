/* SPDX-License-Identifier: MIT */
/* dynid verify: Renaud's Newton-Euler on augmented bodies ([Renaud]).
 *
 * Augmented body i: link i plus the mass m*_{i+1} = m_{i+1} + ... + m_n
 * put at O_{i+1}. Its first moment and inertia about O_i (step 0),
 *   u*_i = u_i + m*_{i+1} p_{i,i+1},  k*_i = k_i - m*_{i+1} [p x][p x],
 * are constants when joint i+1 is revolute (formed once, in the plan) and
 * are recomputed at each call when joint i+1 is prismatic (p varies).
 * With R = Rx(alpha_i) Rz(theta_i) of joint i, z = (0, 0, 1), all in the
 * frame of the link named by the index (steps of the paper):
 *   (1)  w_i = R^T w_{i-1} + qd_i z                      (revolute)
 *   (2)  delta_i = w_i (x) w_i                            (needed entries)
 *   (3)  a_i = R^T a_{i-1} + qd_i (R^T w_{i-1}) x z + qdd_i z   (revolute)
 *   (4)  b_i = [a_i x] + [w_i x][w_i x] = [a_i x] + delta_i - tr(delta_i) 1
 *   (5)  t_i = 2 qd_i (R^T w_{i-1}) x z + qdd_i z          (prismatic)
 *   (6)  alpha_i = R^T (alpha_{i-1} + b_{i-1} p_{i-1,i}) + t_i,
 *        alpha before joint 1 = -g
 *   (7)  e_i = ehat_{i+1} + b_i u*_i,  ehat_i = e_i + m*_i t_i (prismatic i),
 *        carried down as R ehat_i
 *   (8)  f_i = m*_i alpha_i + e_i                          (prismatic)
 *   (9)  n_i = R n_{i+1} + k*_i a_i + w_i x (k*_i w_i) + u*_i x alpha_i
 *              + p_{i,i+1} x R ehat_{i+1}
 *   (10) tau_i = z . n_i (revolute) or z . f_i (prismatic),
 *        + IA qdd + FV qd + FC sign(qd) + FO
 * w x (k w) is formed from the entries of delta (for a diagonal k:
 * ((k_zz - k_yy) d_yz, (k_xx - k_zz) d_xz, (k_yy - k_xx) d_xy), the
 * differences being plan constants).
 *
 * As the paper computes "analytically", no operation with a structural
 * zero is executed: every vector carries the mask of its possibly nonzero
 * components (from the geometry, the joint types and the exact zeros of the
 * augmented parameters, independent of the state), and the plan records
 * which entries are needed at all (the columns of b_i that meet u*_i or
 * p_{i,i+1}, the entries of delta they and k*_i need, the components of n_i
 * and of the carried e that a joint below reads). The counting variant
 * (verify/kernels.h) counts what executes. */
#ifndef DYNID_RENAUD_H
#define DYNID_RENAUD_H

#include "core/model.h"

typedef struct dyvOps_ dyvOps;   /* verify/opcount.h */

typedef struct {
  const dyModel* m;                     /* the model: twist classes and cos, sin alpha */
  int n, rev[DY_MAXJ];
  int tcls[DY_MAXJ];                    /* class of theta_i (prismatic, else 0) */
  double a[DY_MAXJ], d0[DY_MAXJ], th0[DY_MAXJ];
  double ct0[DY_MAXJ], st0[DY_MAXJ];    /* cos, sin theta of a prismatic joint */
  double ms[DY_MAXJ + 1];               /* m*_i */
  double u[DY_MAXJ][3], k[DY_MAXJ][6];  /* u*_i, k*_i (xx xy xz yy yz zz): the constant part */
  double kd[DY_MAXJ][3];                /* k_zz - k_yy, k_xx - k_zz, k_yy - k_xx */
  unsigned um[DY_MAXJ], km[DY_MAXJ];    /* their masks (bits 0-2; 0-5) incl. step 0 terms */
  unsigned kdm[DY_MAXJ];
  double pc[DY_MAXJ][3];                /* p_{i,i+1} (frame i) at q_{i+1} = 0 */
  unsigned pm[DY_MAXJ];                 /* its mask (d of a prismatic joint i+1 counts nonzero) */
  unsigned bneed[DY_MAXJ], dneed[DY_MAXJ];  /* needed entries of b_i (row-major bits), of delta_i */
  unsigned ncomp[DY_MAXJ], ecomp[DY_MAXJ];  /* components of n_i, of e_i needed */
  unsigned eupc[DY_MAXJ];               /* components of R ehat_i needed (by joint i-1) */
  unsigned alneed[DY_MAXJ], rneed[DY_MAXJ]; /* components of alpha_i, of r_i = alpha_i + b_i p */
  int fric[DY_MAXJ];
  double par[DY_MAXPAR];               /* the parameters the plan was made with */
  double g[3];
} dyvRenaud;

/* Plan for model m and the parameter vector par (14n: a realisation of
 * base parameters or any standard parameters; its exact zeros are taken as
 * structural). The plan copies the parameters (par may change afterwards,
 * but then make a new plan) and reads m's twist constants (dy_set_const) at
 * every call: m must outlive it. */
void dyv_renaud_make(dyvRenaud* r, const dyModel* m, const double* par);

/* Inverse dynamics tau (n) at q, qd, qdd (qd, qdd may be NULL: zero). No
 * allocation; r is not modified. */
void dyv_renaud_rnea(const dyvRenaud* r, const double* q, const double* qd, const double* qdd,
                     double* tau);

/* The counting variant (verify/kernels.h): the same results, the
 * operations executed added to *ops. */
void dyv_renaud_rnea_ops(dyvOps* ops, const dyvRenaud* r, const double* q, const double* qd,
                         const double* qdd, double* tau);

/* Multiplications and additions of one call at a generic state (the
 * counts do not depend on the state). */
void dyv_renaud_count(const dyvRenaud* r, long* mul, long* add);

#endif

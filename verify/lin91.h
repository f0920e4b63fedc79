/* SPDX-License-Identifier: MIT */
/* dynid verify: S.K. Lin's base-frame composite body method ([Lin91],
 * "A new composite body method for manipulator dynamics", 1991, Figure 3):
 * the inertia matrix H and the bias vector b with all points seen from the
 * origin O of the base frame, every vector represented in the local frame
 * E_j (modified DH, u_j^<j> = z).
 *
 * Quantities (frame j components; K*_j = 1 revolute, K_j = 1 prismatic):
 *   s_j     O_j - O                  s_j = R^T (s_{j-1} + c_j)        (25)
 *   u_m^<j> axis of joint m          u_m^<j> = R^T u_m^<j-1>          (24)
 *   sh_m^<j> = u_m x s_m             sh_m^<j> = R^T sh_m^<j-1>        (15, 27)
 *   mh_j, ph_j, Jb_j  mass, first moment about O and "bar" tensor of the
 *           composite body j (links j..n):
 *     ph_j = MS_j + m_j s_j + R ph_{j+1}                              (29)
 *     Jb_j = Jb(link j about O) + R Jb_{j+1} R^T                      (30)
 *     Jb(link about O) = J - tr(J)/2 E - m s s^T - s MS^T - MS s^T
 *           (J, MS about O_j: eq. 19/22 rewritten for parameters about
 *           O_j instead of the centre of mass, so that any realisation of
 *           base parameters can be used); Jh = Jb - tr(Jb) E is the
 *           inertia tensor about O (23)
 *   e_j = u_j x ph_j - mh_j sh_j,  a_j = Jh_j u_j + sh_j x ph_j        (62, 63)
 *   B_j = -Jb_j [u_j x] + [sh_j x][ph_j x]                              (64)
 * Inertia matrix, m <= j (65):
 *   H_mj = K*m K*j (a_j . u_m - sh_m . e_j) + K_m K*j e_j . u_m
 *        + K*m K_j ((u_m x ph_j)_z - mh_j (sh_m)_z) + K_m K_j mh_j (u_m)_z
 * Bias vector (54)-(58), (66), (67):
 *   d_mj = K*m K*j (B_j u_m + sh_m x e_j) + K_m K*j e_j x u_m
 *        + K*m K_j z x (u_m x ph_j - mh_j sh_m) + K_m K_j mh_j z x u_m
 *   zeta_j = sum_{k<j} 2 K*k u_k qd_k + K*j u_j qd_j   (frame j, eq. 55/56)
 *   eta_m = -K*m e_m . g^<m> - K_m mh_m (g^<m>)_z     (g: gravity, frame m)
 *   b_m = eta_m - sum_{j<m} (zeta_j^<m> qd_j) . d_jm + sum_{j>m} (zeta_j qd_j) . d_mj
 * plus the joint terms (H += diag(IA); b += FV qd + FC sign(qd) + FO).
 * O is taken at O_1 as Lin does (H and b do not depend on the point; the
 * base-frame offset of joint 1 never enters), with the model's gravity
 * vector. Revolute and prismatic joints (the paper covers
 * both). Cost O(n^2) per call, no allocation (scratch from d, which must
 * come from dy_make_data). */
#ifndef DYNID_LIN91_H
#define DYNID_LIN91_H

#include "core/model.h"

typedef struct dyvOps_ dyvOps;   /* verify/opcount.h */

/* Inertia matrix H (n x n, row-major, full symmetric) [kg m^2|kg|kg m]
 * for parameters par (14n) at q (n). */
void dyv_lin91_H(const dyModel* m, dyData* d, const double* par, const double* q,
                 double* H);

/* H as above and the bias vector b (n) [N m|N] at (q, qd): H qdd + b = tau.
 * H may be NULL when only b is wanted (it is computed anyway, in d->H). */
void dyv_lin91_Hb(const dyModel* m, dyData* d, const double* par, const double* q,
                  const double* qd, double* H, double* b);

/* The counting variants (verify/kernels.h): the same results, and the
 * operations executed added to *ops. */
void dyv_lin91_H_ops(dyvOps* ops, const dyModel* m, dyData* d, const double* par,
                     const double* q, double* H);
void dyv_lin91_Hb_ops(dyvOps* ops, const dyModel* m, dyData* d, const double* par,
                      const double* q, const double* qd, double* H, double* b);

#endif

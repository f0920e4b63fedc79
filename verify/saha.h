/* SPDX-License-Identifier: MIT */
/* dynid verify: Saha's decoupled natural orthogonal complement (DeNOC)
 * dynamics ([Saha99]), converted from his classic-DH frames to the
 * modified-DH link frames of core/model.h (the model is not converted).
 *
 * Twists t_i = (w_i; v_i) of link i at O_i (on the axis of joint i) in
 * frame i, wrenches (n_i; f_i) about O_i in frame i:
 *   t_i = B_{i,i-1} t_{i-1} + p_i qd_i                          ([Saha99] eq. 12)
 *   B_{i,i-1} t = (R^T w; R^T (v + w x c_i)),  c_i = O_i - O_{i-1} (frame i-1)
 *   p_i = (z; 0) revolute, (0; z) prismatic, z = (0,0,1)
 *   M_i = [J_i  [MS_i x]; -[MS_i x]  m_i 1]   (6x6 mass matrix about O_i)
 * Inverse dynamics (section 5.1): twist rates
 *   xi_i = B xi_{i-1} + Bdot t_{i-1} + p_i qdd_i + Omega_i p_i qd_i,
 *   xi_0 = (0; -g)   (eq. 32: gravity as a base acceleration),
 * generalised wrenches w*_i = M_i xi_i + (w x J w; w x (w x MS)) and
 *   wt_i = w*_i + B_{i+1,i}^T wt_{i+1},  tau_i = p_i^T wt_i  (+ joint terms).
 * Forward dynamics (section 5.2, Appendix B): phi = tau - C qd - g - friction
 * from the inverse dynamics at qdd = 0, then I qdd = phi with
 * I = U D U^T, by the articulated mass matrices
 *   Mh_n = M_n,  psih_k = Mh_k p_k,  mh_k = p_k^T psih_k + IA_k,
 *   psi_k = psih_k / mh_k,
 *   Mh_{k-1} = M_{k-1} + B_{k,k-1}^T (Mh_k - psih_k psi_k^T) B_{k,k-1}   (eq. 50)
 * and the three sweeps
 *   tauh_i = phi_i - p_i^T eta_{i,i+1},
 *       eta_{i,i+1} = B_{i+1,i}^T (psi_{i+1} tauh_{i+1} + eta_{i+1,i+2})  (34-35)
 *   taut_i = tauh_i / mh_i                                              (D^-1)
 *   qdd_i = taut_i - psi_i^T mu_{i,i-1},
 *       mu_{i,i-1} = B_{i,i-1} (p_{i-1} qdd_{i-1} + mu_{i-1,i-2})       (36-37)
 * (eq. 35 reads "psi_{i+1} tauh_{i-1}" in the OCR text; the index must be
 * i+1, which follows from U_ik = psi_k^T B_ki p_i and is what the tests
 * confirm). Revolute and prismatic joints (the paper covers both).
 * All of it in 3x3 blocks and 3-vectors (saha.c): B t = (R^T w; R^T (v +
 * w x c)), B^T w = (R n + c x R f; R f), Mh_k as its blocks S11, S12, S22,
 * the congruence of eq. 50 by rotating the blocks and shifting by [c x];
 * without armature A p = 0 and the joint's row and column are skipped.
 * Counted by the counting variants (verify/kernels.h; dyv_saha_count).
 * Units as core/dynamics.h; scratch from d (dy_make_data), no allocation. */
#ifndef DYNID_SAHA_H
#define DYNID_SAHA_H

#include "core/model.h"

typedef struct dyvOps_ dyvOps;   /* verify/opcount.h */

/* Inverse dynamics tau (n) with parameters par (14n), joint terms
 * IA qdd + FV qd + FC sign(qd) + FO included. qd/qdd may be NULL. */
void dyv_saha_id(const dyModel* m, dyData* d, const double* par, const double* q,
                 const double* qd, const double* qdd, double* tau);

/* Forward dynamics qdd (n) from tau (n) by the UDU^T sweeps. Returns 0, or
 * k+1 if the articulated inertia mh_k about joint k is not positive. */
int dyv_saha_fd(const dyModel* m, dyData* d, const double* par, const double* q,
                const double* qd, const double* tau, double* qdd);

/* The counting variants (verify/kernels.h): the same results, the
 * operations executed added to *ops. */
void dyv_saha_id_ops(dyvOps* ops, const dyModel* m, dyData* d, const double* par,
                     const double* q, const double* qd, const double* qdd, double* tau);
int dyv_saha_fd_ops(dyvOps* ops, const dyModel* m, dyData* d, const double* par,
                    const double* q, const double* qd, const double* tau, double* qdd);

/* Executed counts on model m with parameters par at a generic state:
 * c[0], c[1] inverse dynamics (Table 1's quantity), c[2], c[3] forward
 * dynamics without phi (the UDU^T part: Table 2's quantity). 0 or -1. */
int dyv_saha_count(const dyModel* m, const double* par, long c[4]);

/* The factors themselves (for tests and reports): U (n x n, row-major, unit
 * upper triangular) and D (n) with I = U diag(D) U^T equal to the joint-space
 * inertia matrix (incl. armature). Returns 0 or k+1 as dyv_saha_fd. d is
 * not used (the factors need no scratch beyond the stack). */
int dyv_saha_udu(const dyModel* m, dyData* d, const double* par, const double* q,
                 double* U, double* D);

#endif

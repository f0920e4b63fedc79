/* SPDX-License-Identifier: MIT */
/* dynid core: S.K. Lin's inertia constants of composite bodies ([LinFang99],
 * Lin & Fang 1999, section 3 and Appendix C) and the geometry indicators of
 * its Theorem 1 (r, s, u_r^<i>, delta_i, sigma_i).
 *
 * Composite body i is links i..n. Its mass mhat_i, first moment chat_i about
 * O_i and inertia tensor Jhat_i about O_i (frame-i axes) split into a
 * constant and a motion-dependent part (eqs. 22-23):
 *     chat_i = k_i + l_i(q),    Jhat_i = U_i + V_i(q),
 * with k_n = m_n c_n, U_n = J_n (l_n = 0, V_n = 0) and, for i < n (C1-C3):
 *   joint i+1 revolute (R = Rx(alpha_{i+1}) Rz(theta), s = O_i -> O_{i+1}
 *   constant, Rb = R e_z = (0, -sin alpha, cos alpha)):
 *     k_i = m_i c_i + mhat_{i+1} s + Rb (k_{i+1})_z
 *     U_i = J_i - mhat_{i+1} [s x]^2 + (U_{i+1})_22 (1 - Rb Rb^T)
 *           - [s x][(Rb kz) x] - [(Rb kz) x][s x]
 *   joint i+1 prismatic (R constant, b = (a_{i+1}, 0, 0)):
 *     k_i = m_i c_i + mhat_{i+1} b + R k_{i+1}
 *     U_i = J_i + R U_{i+1} R^T - mhat_{i+1} [b x]^2 - [b x][(R k) x] - [(R k) x][b x]
 * J_i is the link inertia about O_i (XX..ZZ of model.h as a tensor),
 * m_i c_i its first moment (MX MY MZ). All are linear in the standard
 * parameters, so a base-parameter set can take its rows from unit vectors.
 * (C2) is written as in the paper's Remark: (U_{i+1})_33 stays in V_i.
 *
 * Indices here are 0-based joints j = 0..n-1 (Lin's joint j+1).          */
#ifndef DYNID_LIN_CONST_H
#define DYNID_LIN_CONST_H

#include "core/model.h"

/* Inertia constants from the link parameters par (at least 10n entries,
 * model.h order; joint parameters are not used).
 * mhat: composite masses [kg] (n); k: k_i in frame i [kg m] (3n);
 * U: U_i in frame i, row-major 3x3 [kg m^2] (9n). Theta of prismatic joints
 * and d of revolute joints are the model's constants (q does not enter). */
void dy_lin_const(const dyModel* m, const double* par, double* mhat, double* k,
                  double* U);

/* Geometry of Theorem 1 (constant for a model).
 *   r:  first revolute joint (0-based), n if there is none;
 *   s:  first revolute joint not parallel to joint r, n if there is none;
 *   ur: u_r, the axis of joint r, in frame i for r <= i < s (constant there:
 *       every joint before s turns about an axis parallel to u_r or
 *       translates), zero elsewhere (3n);
 *   delta: 1 if (k_i)_x, (k_i)_y of revolute i, r <= i < s, enter the
 *       dynamics; 0 when every joint axis k < i is parallel to u_r and to
 *       gravity and, for every revolute m in [r, i), O_m -> O_i is zero or
 *       parallel to u_r ([LinFang99], Theorem 1) (n);
 *   sigma: 0 for a prismatic joint r < i < s parallel to u_r, else 1 (n);
 *   ur_base: u_r in frame 0.                                              */
typedef struct {
  int r, s;
  double ur[3*DY_MAXJ];
  int delta[DY_MAXJ];
  int sigma[DY_MAXJ];
  double ur_base[3];
} dyLinGeom;

/* Fill g for model m. Parallelism is decided with tolerance 1e-9 on unit
 * vectors and 1e-9 (1 + sum |a| + |d|) on lengths. */
void dy_lin_geom(const dyModel* m, dyLinGeom* g);

#endif

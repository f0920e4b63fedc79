/* SPDX-License-Identifier: MIT */
/* dynid verify: forward simulation of the arm under a torque held between
 * samples, by a linearly implicit (Rosenbrock-W) integrator that stays
 * stable where the equations are stiff.
 *
 * The state y = (q, qd) obeys y' = f(y) = (qd, qdd(q, qd, tau)) with qdd
 * from the articulated-body algorithm (core/dynamics.h, dy_fd_aba). An
 * identified consistent model often has links of tiny inertia (the bounds
 * of the estimate hold them at their floor) with viscous and Coulomb
 * friction on their joints: the time constant M / FV falls far below the
 * log's step and an explicit method (RK4) must shrink its step to it.
 *
 * The step is the two-stage Rosenbrock formula of [ShampineReichelt97]
 * (the one of MATLAB's ode23s), gamma = 1/(2+sqrt 2), with W = I - h gamma J:
 *   k1 = W^-1 f(y0)
 *   k2 = W^-1 (f(y0 + h/2 k1) - k1) + k1
 *   y1 = y0 + h k2                                         (order 2)
 *   k3 = W^-1 (f(y1) - (6+sqrt 2)(k2 - f(y0 + h/2 k1)) - 2 (k1 - f(y0)))
 *   err = h/6 (k1 - 2 k2 + k3)                             (its error estimate)
 * Written as a Rosenbrock method (alpha21 = 1/2, gamma21 = -gamma, b = (0, 1))
 * it meets the order-2 conditions of a W-method (b2 alpha21 = 1/2 and
 * b2 gamma21 = -gamma separately), so J need not be the exact Jacobian: any
 * J keeps order 2. The one used holds the stiff part only:
 *   J = [0 1; 0 -M(q0)^-1 D],   D = diag(FV_j + FC_j / max(|qd0_j|, v_eps))
 * (viscous friction, and Coulomb friction as the damping of its secant
 * through 0), so a solve with W is a Cholesky of M + h gamma D (n x n):
 *   (M + h gamma D) k_qd = M r_qd,   k_q = r_q + h gamma k_qd.
 * W's stability function is L-stable on the damped part: a joint with
 * M / FV of 1e-6 s is integrated at the log's step.
 *
 * Coulomb friction FC sign(qd) has no classical solution where a joint
 * sticks (the torque holding it is anywhere in [-FC, FC]). The simulation
 * uses FC sat(qd / v_eps) with v_eps = DYV_SIM_VEPS: a sticking joint then
 * creeps at |qd| < v_eps, at most v_eps * T in position over a time T (1e-6
 * rad over a 0.1 s horizon), below the step's position tolerance summed
 * over the horizon; outside |qd| < v_eps the equations are exactly
 * dy_fd_aba's.
 *
 * Step control: the error is scaled per joint by DYV_SIM_TOLQ (q) and
 * DYV_SIM_TOLQD (qd); a step whose largest scaled error is <= 1 is
 * accepted, and the next is h * min(4, max(0.2, 0.9 err^(-1/3))). A step
 * whose stage fails (articulated inertia not positive, the result not
 * finite) is cut by 4, down to dt * 1e-6 where the interval fails. No
 * allocation after dyv_sim_make. */
#ifndef DYNID_SIM_H
#define DYNID_SIM_H

#include "core/model.h"
#include "core/dynamics.h"

#define DYV_SIM_VEPS 1e-4   /* [rad/s | m/s] Coulomb friction's linear band */
#define DYV_SIM_TOLQ 1e-6
#define DYV_SIM_TOLQD 1e-4

typedef struct {
  const dyModel* m;
  dyData* d;
  double* par;             /* the standard parameters (14n), FC set to 0, owned */
  double fc[DY_MAXJ];      /* Coulomb friction FC_j [N m] (0 without friction) */
  double fv[DY_MAXJ];      /* viscous friction FV_j [N m s/rad] */
  double* H;               /* inertia matrix, then the Cholesky factor (n x n) */
  double h;                /* step size to go on with [s]; 0: the first interval's */
  long steps, rejected;    /* accepted and rejected steps so far */
} dyvSim;

/* A simulator of model m with standard parameters par (14n, friction
 * included when the model has it; copied). NULL on allocation failure. */
dyvSim* dyv_sim_make(const dyModel* m, const double* par);
void dyv_sim_free(dyvSim* s);

/* Advance (q, qd) in place over dt > 0 [s] under the joint torque tau
 * (n, held constant):  M(q) qdd + c(q, qd) + g(q) + FV qd + FC sat(qd/v_eps)
 * + FO = tau. 0, or 1 when no step down to dt * 1e-6 succeeds (q, qd then
 * unchanged from where the failed step began). */
int dyv_sim_advance(dyvSim* s, double* q, double* qd, const double* tau, double dt);

#endif

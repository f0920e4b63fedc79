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
 *   J = [0 1; 0 -M(q0)^-1 D],   D = diag(FV_j + d/dqd FC_j tanh(qd0_j / v_eps))
 * (viscous friction and the smoothed Coulomb friction below; M includes
 * the armatures IA), so a solve with W is a Cholesky of M + h gamma D:
 *   (M + h gamma D) k_qd = M r_qd,   k_q = r_q + h gamma k_qd.
 * W's stability function is L-stable on the damped part: a joint with
 * M / FV of 1e-6 s is integrated at the log's step.
 *
 * Coulomb friction FC sign(qd) has no classical solution where a joint
 * sticks (the torque holding it is anywhere in [-FC, FC]), and a step
 * across its jump costs any integrator a cascade of rejected steps. The
 * simulation uses FC tanh(qd / v_eps), v_eps = DYV_SIM_VEPS, whose slope
 * FC / v_eps cosh^-2(qd / v_eps) joins D in J (the exact Jacobian of the
 * friction): a joint held by a torque |tau_h| < FC creeps at
 * |qd| = v_eps atanh(|tau_h| / FC) (< 2.7 v_eps for |tau_h| < 0.99 FC),
 * under 1.4e-5 rad over a 0.05 s horizon; from |qd| = 4 v_eps on,
 * tanh differs from sign by under 7e-4 FC. On the KUKA and Panda logs
 * with their consistent estimates the simulated positions agree with a
 * run at tolerances 1000 times tighter to about 1e-4 of the errors
 * reported (tests/test_sim.c checks the accuracy and the stability).
 *
 * Step control: the error is scaled per joint by DYV_SIM_TOLQ (q) and
 * DYV_SIM_TOLQD (qd); a step whose largest scaled error is <= 1 is
 * accepted (and any step of dt * 1e-6, which a kink of the torque inside
 * it may need), and the next is h * min(3, max(0.2, 0.8 err^(-1/3))); the
 * steps of an interval are equal, so none is a sliver at its end. A step
 * whose stage fails (articulated inertia not positive, the result not
 * finite) is cut by 4, down to dt * 1e-6 where the interval fails. The
 * step size goes on from one interval to the next (s->h). No allocation
 * after dyv_sim_make. */
#ifndef DYNID_SIM_H
#define DYNID_SIM_H

#include "core/model.h"
#include "core/dynamics.h"

#define DYV_SIM_VEPS 1e-4   /* [rad/s | m/s] Coulomb friction's smoothing width */
#define DYV_SIM_TOLQ 1e-6   /* [rad | m] error per step in q */
#define DYV_SIM_TOLQD 1e-4  /* [rad/s | m/s] error per step in qd */

typedef struct {
  const dyModel* m;
  dyData* d;
  double* par;             /* the standard parameters (14n), FC set to 0, owned */
  double fc[DY_MAXJ];      /* Coulomb friction FC_j [N m] (0 without friction) */
  double fv[DY_MAXJ];      /* viscous friction FV_j [N m s/rad] */
  double* H;               /* M(q0), then the Cholesky factor of M + h gamma D (n x n each) */
  double h;                /* step size to go on with [s]; 0: the first interval's */
  long steps, rejected;    /* accepted and rejected steps so far */
} dyvSim;

/* A simulator of model m with standard parameters par (14n, friction
 * included when the model has it; copied). NULL on allocation failure. */
dyvSim* dyv_sim_make(const dyModel* m, const double* par);
void dyv_sim_free(dyvSim* s);

/* Advance (q, qd) in place over dt > 0 [s] under the joint torque tau
 * (n, held constant):  M(q) qdd + c(q, qd) + g(q) + FV qd + FC tanh(qd/v_eps)
 * + FO = tau. 0, or 1 when no step down to dt * 1e-6 succeeds (q, qd are
 * then left unchanged). */
int dyv_sim_advance(dyvSim* s, double* q, double* qd, const double* tau, double dt);

#endif

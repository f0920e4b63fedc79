/* SPDX-License-Identifier: MIT */
/* dynid tests: a C interface to Orocos KDL (Debian liborocos-kdl-dev), the
 * independent implementation the core dynamics are checked and timed
 * against. Used only by the tests and the benchmark (tests/ *.cpp are linked
 * into every test binary), never by libdynid or the dynid program.
 *
 * A kdl_chain is a KDL::Chain built from a dynid model and a full parameter
 * vector (14n, model.h order) plus KDL's solvers for it, all made
 * once; the calls below only copy arrays in and out.
 *
 * Two ways to lay a modified-DH chain out in KDL segments (both exact):
 *   KDL_AXIS  one segment per joint: joint j turns about (slides along) the
 *             z axis of frame j, given in frame j-1 as origin (a_j,0,0) and
 *             direction Rx(alpha_j) e_z (Joint::RotAxis / TransAxis); the
 *             segment's tip is frame j, so link j's inertia goes in as it is.
 *   KDL_ZAXIS n+1 segments: a fixed segment from frame 0 to frame 1 at
 *             q1 = 0, then segment j with Joint::RotZ / TransZ at its root
 *             (frame j at q_j = 0) and its tip at frame j+1 at q_{j+1} = 0;
 *             link j's inertia is re-expressed in that tip frame. This is the
 *             usual way to write a DH chain in KDL (Frame::DH_Craig1989).
 *
 * Joint terms: KDL has no friction. IA goes into KDL's joint inertia
 * (Joint(..., inertia)), which KDL's RNE adds as IA*qdd and JntToMass adds
 * to the diagonal; FV qd + FC sign(qd) + FO are added to kdl_id's torques and
 * subtracted from kdl_fd's input torques here, in this file.
 * Arrays: q, qd, qdd, tau have n entries; H is n x n row-major (symmetric). */
#ifndef DYNID_KDL_SHIM_H
#define DYNID_KDL_SHIM_H

#include "core/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kdl_chain_ kdl_chain;

enum { KDL_AXIS = 0, KDL_ZAXIS = 1 };

/* Build the KDL chain of model m with parameters par (14n) in the given
 * layout, gravity m->gravity (frame 0 = KDL base). NULL on failure.
 * Free with kdl_free. */
kdl_chain* kdl_make(const dyModel* m, const double* par, int layout);
void kdl_free(kdl_chain* k);

/* Number of KDL segments (n or n+1 by layout). */
int kdl_nseg(const kdl_chain* k);

/* Inverse dynamics by ChainIdSolver_RNE (+ joint friction terms).
 * qd, qdd NULL means zero. Returns KDL's status (0 success). */
int kdl_id(kdl_chain* k, const double* q, const double* qd, const double* qdd, double* tau);

/* Joint-space inertia matrix by ChainDynParam::JntToMass (includes IA on
 * the diagonal). Returns KDL's status (0 success). */
int kdl_mass(kdl_chain* k, const double* q, double* H);

/* Forward dynamics by ChainFdSolver_RNE (KDL's RNE bias + JntToMass + LDL^T),
 * with friction moved to the torque side. Returns KDL's status. */
int kdl_fd(kdl_chain* k, const double* q, const double* qd, const double* tau, double* qdd);

#ifdef __cplusplus
}
#endif
#endif

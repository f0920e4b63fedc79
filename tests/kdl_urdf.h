/* SPDX-License-Identifier: MIT */
/* dynid tests: a URDF tree in Orocos KDL, the independent reference for the
 * URDF reader (locked joints off the chain, <dynamics>). Used only by the
 * tests (tests/ *.cpp are linked into every test binary), never by libdynid.
 *
 * The file is parsed here with libxml2, without any of core/urdf.c, into a
 * KDL::Tree the way kdl_parser does it: one segment per link below the root,
 * named after the link, hooked to its parent link; its joint sits at the
 * URDF joint origin F (parent-link frame) with the URDF axis turned into
 * that frame, Joint::RotAxis (revolute, continuous), TransAxis (prismatic)
 * or None (fixed); its tip is F (the child-link frame at q = 0); its inertia
 * is the URDF <inertial> (mass, centre of mass = origin xyz, inertia about
 * the centre of mass turned from the inertial frame (origin rpy) into the
 * link frame), in the child-link frame, which is KDL's segment tip frame.
 * The root link's own inertia is not used (it is ground).
 * Torques: KDL::TreeIdSolver_RNE with gravity (0, 0, -9.81) [m/s^2] in the
 * root-link frame, the root fixed, plus each named joint's <dynamics>
 *   damping qd + friction sign(qd) + armature qdd + offset
 * (absent attributes 0; armature and offset are dynid's additions). */
#ifndef DYNID_KDL_URDF_H
#define DYNID_KDL_URDF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kdl_urdf_ kdl_urdf;

/* Parse the URDF at path and build the tree and its solver. NULL on failure,
 * with a one-line reason in err[errsz]. Free with kdl_urdf_free. */
kdl_urdf* kdl_urdf_load(const char* path, char* err, int errsz);
void kdl_urdf_free(kdl_urdf* k);

/* Number of moving joints of the tree. */
int kdl_urdf_njoint(const kdl_urdf* k);

/* Hold moving joint `joint` at position q [rad|m] with qd = qdd = 0 in every
 * later kdl_urdf_id that does not name it (e.g. a locked joint off the
 * chain). 0, or -1 if there is no such moving joint. */
int kdl_urdf_hold(kdl_urdf* k, const char* joint, double q);

/* Torques [N m|N] of the moving joints names[0..nj-1] at their positions,
 * velocities and accelerations q, qd, qdd (nj each); every other moving
 * joint at its held position or 0, at rest. Each named joint's <dynamics>
 * terms are added. No allocation. 0, or -1 (unknown name, KDL failure). */
int kdl_urdf_id(kdl_urdf* k, const char* const* names, int nj, const double* q, const double* qd,
                const double* qdd, double* tau);

#ifdef __cplusplus
}
#endif
#endif

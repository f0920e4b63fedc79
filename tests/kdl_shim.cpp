/* SPDX-License-Identifier: MIT */
// dynid tests: the KDL shim (see kdl_shim.h). Builds a KDL::Chain from the
// modified-DH model by KDL's own frame and inertia algebra (Frame products,
// Joint::pose, Frame * RigidBodyInertia), so that nothing of libdynid's
// kinematics or parameter conversion is reused: the check stays independent.
#include "kdl_shim.h"

#include <kdl/chain.hpp>
#include <kdl/chaindynparam.hpp>
#include <kdl/chainfdsolver_recursive_newton_euler.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/jntspaceinertiamatrix.hpp>

#include <cmath>
#include <new>

struct kdl_chain_ {
  int n;
  KDL::Chain chain;  // must outlive the solvers (ChainFdSolver_RNE keeps a reference)
  KDL::ChainIdSolver_RNE* id;
  KDL::ChainDynParam* dyn;
  KDL::ChainFdSolver_RNE* fd;
  KDL::JntArray q, qd, qdd, tau;
  KDL::Wrenches fext;
  KDL::JntSpaceInertiaMatrix H;
  double fv[DY_MAXJ], fc[DY_MAXJ], fo[DY_MAXJ];
  bool friction;
};

// Modified-DH transform of joint j at q_j = 0, written with KDL's frames:
// Rx(alpha) Tx(a) Rz(theta) Tz(d).
static KDL::Frame mdh_frame(const dyModel* m, int j) {
  return KDL::Frame(KDL::Rotation::RotX(m->dh_alpha[j])) *
         KDL::Frame(KDL::Vector(m->dh_a[j], 0, 0)) *
         KDL::Frame(KDL::Rotation::RotZ(m->dh_theta[j])) *
         KDL::Frame(KDL::Vector(0, 0, m->dh_d[j]));
}

// Link j's parameters (J about O_j, first moment, mass; frame j) as KDL's
// (mass, centre of mass, inertia about the centre of mass), frame j.
// Fails (false) for zero mass with a non-zero first moment.
static bool link_inertia(const double* pl, KDL::RigidBodyInertia* out) {
  double mass = pl[DY_M];
  double c[3] = {0, 0, 0};
  if (mass != 0) {
    for (int a = 0; a < 3; a++) c[a] = pl[DY_MX + a] / mass;
  } else if (pl[DY_MX] != 0 || pl[DY_MY] != 0 || pl[DY_MZ] != 0) {
    return false;
  }
  // Ic = J_O - m (|c|^2 1 - c c^T)   (parallel axes; KDL adds it back)
  double cc = c[0]*c[0] + c[1]*c[1] + c[2]*c[2];
  double ixx = pl[DY_XX] - mass*(cc - c[0]*c[0]);
  double iyy = pl[DY_YY] - mass*(cc - c[1]*c[1]);
  double izz = pl[DY_ZZ] - mass*(cc - c[2]*c[2]);
  double ixy = pl[DY_XY] + mass*c[0]*c[1];
  double ixz = pl[DY_XZ] + mass*c[0]*c[2];
  double iyz = pl[DY_YZ] + mass*c[1]*c[2];
  *out = KDL::RigidBodyInertia(mass, KDL::Vector(c[0], c[1], c[2]),
                               KDL::RotationalInertia(ixx, iyy, izz, ixy, ixz, iyz));
  return true;
}

static bool build_chain(KDL::Chain& chain, const dyModel* m, const double* par, int layout) {
  const int n = m->n;
  const double* pj = par + DY_NPAR_LINK*n;
  if (layout == KDL_AXIS) {
    for (int j = 0; j < n; j++) {
      KDL::RigidBodyInertia I;
      if (!link_inertia(par + DY_NPAR_LINK*j, &I)) return false;
      double sa = std::sin(m->dh_alpha[j]), ca = std::cos(m->dh_alpha[j]);
      KDL::Vector origin(m->dh_a[j], 0, 0), axis(0, -sa, ca);
      KDL::Joint jt(origin, axis, m->jnt_type[j] == DY_REVOLUTE ? KDL::Joint::RotAxis : KDL::Joint::TransAxis,
                    1, 0, pj[DY_NPAR_JNT*j + DY_IA]);
      chain.addSegment(KDL::Segment(jt, mdh_frame(m, j), I));
    }
  } else {
    chain.addSegment(KDL::Segment(KDL::Joint(KDL::Joint::Fixed), mdh_frame(m, 0)));
    for (int j = 0; j < n; j++) {
      KDL::RigidBodyInertia I;
      if (!link_inertia(par + DY_NPAR_LINK*j, &I)) return false;
      KDL::Frame tip = j + 1 < n ? mdh_frame(m, j + 1) : KDL::Frame::Identity();
      KDL::Joint jt(m->jnt_type[j] == DY_REVOLUTE ? KDL::Joint::RotZ : KDL::Joint::TransZ,
                    1, 0, pj[DY_NPAR_JNT*j + DY_IA]);
      chain.addSegment(KDL::Segment(jt, tip, tip.Inverse() * I));
    }
  }
  return (int)chain.getNrOfJoints() == n;
}

extern "C" kdl_chain* kdl_make(const dyModel* m, const double* par, int layout) {
  if (!m || m->n < 1 || m->n > DY_MAXJ) return nullptr;
  kdl_chain* k = new (std::nothrow) kdl_chain_();
  if (!k) return nullptr;
  k->n = m->n;
  if (!build_chain(k->chain, m, par, layout)) { delete k; return nullptr; }
  KDL::Vector g(m->gravity[0], m->gravity[1], m->gravity[2]);
  k->id = new KDL::ChainIdSolver_RNE(k->chain, g);
  k->dyn = new KDL::ChainDynParam(k->chain, g);
  k->fd = new KDL::ChainFdSolver_RNE(k->chain, g);
  k->q.resize(m->n); k->qd.resize(m->n); k->qdd.resize(m->n); k->tau.resize(m->n);
  k->H.resize(m->n);
  k->fext.assign(k->chain.getNrOfSegments(), KDL::Wrench::Zero());
  k->friction = false;
  const double* pj = par + DY_NPAR_LINK*m->n;
  for (int j = 0; j < m->n; j++) {
    k->fv[j] = pj[DY_NPAR_JNT*j + DY_FV];
    k->fc[j] = pj[DY_NPAR_JNT*j + DY_FC];
    k->fo[j] = pj[DY_NPAR_JNT*j + DY_FO];
    if (k->fv[j] != 0 || k->fc[j] != 0 || k->fo[j] != 0) k->friction = true;
  }
  return k;
}

extern "C" void kdl_free(kdl_chain* k) {
  if (!k) return;
  delete k->fd; delete k->dyn; delete k->id;
  delete k;
}

extern "C" int kdl_nseg(const kdl_chain* k) { return (int)k->chain.getNrOfSegments(); }

// FV qd + FC sign(qd) + FO of joint j
static double friction(const kdl_chain* k, int j, double qd) {
  double s = qd > 0 ? 1 : qd < 0 ? -1 : 0;
  return k->fv[j]*qd + k->fc[j]*s + k->fo[j];
}

extern "C" int kdl_id(kdl_chain* k, const double* q, const double* qd, const double* qdd, double* tau) {
  const int n = k->n;
  for (int j = 0; j < n; j++) {
    k->q(j) = q[j]; k->qd(j) = qd ? qd[j] : 0; k->qdd(j) = qdd ? qdd[j] : 0;
  }
  int r = k->id->CartToJnt(k->q, k->qd, k->qdd, k->fext, k->tau);
  for (int j = 0; j < n; j++) tau[j] = k->tau(j);
  if (k->friction)
    for (int j = 0; j < n; j++) tau[j] += friction(k, j, k->qd(j));
  return r;
}

extern "C" int kdl_mass(kdl_chain* k, const double* q, double* H) {
  const int n = k->n;
  for (int j = 0; j < n; j++) k->q(j) = q[j];
  int r = k->dyn->JntToMass(k->q, k->H);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) H[i*n + j] = k->H(i, j);
  return r;
}

extern "C" int kdl_fd(kdl_chain* k, const double* q, const double* qd, const double* tau, double* qdd) {
  const int n = k->n;
  for (int j = 0; j < n; j++) {
    k->q(j) = q[j]; k->qd(j) = qd[j]; k->tau(j) = tau[j];
    if (k->friction) k->tau(j) -= friction(k, j, qd[j]);
  }
  int r = k->fd->CartToJnt(k->q, k->qd, k->tau, k->fext, k->qdd);
  for (int j = 0; j < n; j++) qdd[j] = k->qdd(j);
  return r;
}

/* SPDX-License-Identifier: MIT */
// dynid tests: a URDF tree in KDL (see kdl_urdf.h). The file is read here
// with libxml2 and turned into KDL frames, joints and inertias by KDL's own
// algebra (Rotation::RPY, Frame products, Rotation * RigidBodyInertia), so
// that nothing of core/urdf.c (DH frames, merging, locking) is reused.
#include "kdl_urdf.h"

#include <kdl/tree.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

namespace {

struct ULink {
  std::string name;
  bool inertial = false;
  double mass = 0, xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0}, I6[6] = {0, 0, 0, 0, 0, 0};
};

struct UJoint {
  std::string name, type, parent, child;
  double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0}, axis[3] = {1, 0, 0};
  double dyn[4] = {0, 0, 0, 0};   // damping friction armature offset
};

// the error of one parse, "path: what"
struct Parse {
  const char* path;
  char* err;
  int errsz;
  bool failed = false;
  void fail(const char* fmt, ...) {
    if (failed) return;
    failed = true;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, (size_t)errsz, "%s: %s", path, msg);
  }
};

xmlNodePtr child(xmlNodePtr n, const char* name) {
  for (xmlNodePtr c = n ? n->children : nullptr; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !xmlStrcmp(c->name, (const xmlChar*)name)) return c;
  return nullptr;
}

std::string attr(xmlNodePtr n, const char* name) {
  xmlChar* s = n ? xmlGetProp(n, (const xmlChar*)name) : nullptr;
  std::string r = s ? (const char*)s : "";
  if (s) xmlFree(s);
  return r;
}

// cnt blank-separated finite numbers of attribute name of n (absent: out unchanged)
void numbers(Parse& P, xmlNodePtr n, const char* name, double* out, int cnt) {
  xmlChar* s = n ? xmlGetProp(n, (const xmlChar*)name) : nullptr;
  if (!s) return;
  const char* p = (const char*)s;
  for (int k = 0; k < cnt; k++) {
    char* e;
    errno = 0;
    double v = strtod(p, &e);
    if (e == p || errno || !std::isfinite(v)) {
      P.fail("line %ld: bad %s=\"%s\"", xmlGetLineNo(n), name, (const char*)s);
      break;
    }
    out[k] = v;
    p = e;
  }
  xmlFree(s);
}

void origin(Parse& P, xmlNodePtr n, double xyz[3], double rpy[3]) {
  xmlNodePtr o = child(n, "origin");
  numbers(P, o, "xyz", xyz, 3);
  numbers(P, o, "rpy", rpy, 3);
}

KDL::Frame frame(const double xyz[3], const double rpy[3]) {
  return KDL::Frame(KDL::Rotation::RPY(rpy[0], rpy[1], rpy[2]), KDL::Vector(xyz[0], xyz[1], xyz[2]));
}

// the URDF inertial in the link frame: mass at the origin xyz, inertia about
// the centre of mass given in the inertial frame (rpy), turned into link axes
KDL::RigidBodyInertia inertia(const ULink& L) {
  if (!L.inertial) return KDL::RigidBodyInertia::Zero();
  KDL::Frame O = frame(L.xyz, L.rpy);
  KDL::RotationalInertia Ic(L.I6[0], L.I6[3], L.I6[5], L.I6[1], L.I6[2], L.I6[4]);
  KDL::RigidBodyInertia about_com(0, KDL::Vector::Zero(), Ic);
  KDL::RotationalInertia Ic_link = (O.M * about_com).getRotationalInertia();
  return KDL::RigidBodyInertia(L.mass, O.p, Ic_link);
}

}  // namespace

struct kdl_urdf_ {
  KDL::Tree tree;                 // must outlive the solver (it keeps a reference)
  KDL::TreeIdSolver_RNE* id = nullptr;
  KDL::JntArray q, qd, qdd, tau, held;
  KDL::WrenchMap fext;
  std::vector<std::string> jname;             // by q_nr
  std::vector<double> damping, friction, armature, offset;   // by q_nr
};

extern "C" kdl_urdf* kdl_urdf_load(const char* path, char* err, int errsz) {
  Parse P{path, err, errsz};
  xmlDocPtr doc = xmlReadFile(path, nullptr, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) { P.fail("not a readable XML file"); return nullptr; }
  xmlNodePtr root = xmlDocGetRootElement(doc);
  std::map<std::string, ULink> links;
  std::vector<UJoint> joints;
  for (xmlNodePtr c = root ? root->children : nullptr; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (!xmlStrcmp(c->name, (const xmlChar*)"link")) {
      ULink L;
      L.name = attr(c, "name");
      xmlNodePtr in = child(c, "inertial");
      if (in) {
        L.inertial = true;
        origin(P, in, L.xyz, L.rpy);
        numbers(P, child(in, "mass"), "value", &L.mass, 1);
        static const char* const nm[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        for (int k = 0; k < 6; k++) numbers(P, child(in, "inertia"), nm[k], L.I6 + k, 1);
      }
      links[L.name] = L;
    } else if (!xmlStrcmp(c->name, (const xmlChar*)"joint")) {
      UJoint J;
      J.name = attr(c, "name");
      J.type = attr(c, "type");
      J.parent = attr(child(c, "parent"), "link");
      J.child = attr(child(c, "child"), "link");
      origin(P, c, J.xyz, J.rpy);
      numbers(P, child(c, "axis"), "xyz", J.axis, 3);
      xmlNodePtr d = child(c, "dynamics");
      numbers(P, d, "damping", J.dyn, 1);
      numbers(P, d, "friction", J.dyn + 1, 1);
      numbers(P, d, "armature", J.dyn + 2, 1);
      numbers(P, d, "offset", J.dyn + 3, 1);
      if (J.type != "fixed" && J.type != "revolute" && J.type != "continuous" && J.type != "prismatic")
        P.fail("joint '%s': type '%s' is not handled here", J.name.c_str(), J.type.c_str());
      joints.push_back(J);
    }
  }
  xmlFreeDoc(doc);
  if (P.failed) return nullptr;

  // the root: the one link that is no joint's child
  std::map<std::string, int> parent_of;
  for (size_t j = 0; j < joints.size(); j++) parent_of[joints[j].child] = (int)j;
  std::string rootname;
  for (const auto& L : links)
    if (!parent_of.count(L.first)) {
      if (!rootname.empty()) { P.fail("two roots '%s', '%s'", rootname.c_str(), L.first.c_str()); return nullptr; }
      rootname = L.first;
    }
  if (rootname.empty()) { P.fail("no root link"); return nullptr; }

  kdl_urdf* k = new (std::nothrow) kdl_urdf_();
  if (!k) { P.fail("out of memory"); return nullptr; }
  k->tree = KDL::Tree(rootname);
  // add segments parents first: a joint whose parent link is in the tree
  std::vector<bool> done(joints.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t j = 0; j < joints.size(); j++) {
      const UJoint& J = joints[j];
      if (done[j] || k->tree.getSegment(J.parent) == k->tree.getSegments().end()) continue;
      KDL::Frame F = frame(J.xyz, J.rpy);             // child-link frame in the parent-link frame at q = 0
      KDL::Vector ax(J.axis[0], J.axis[1], J.axis[2]);
      ax.Normalize();
      KDL::Joint jt(J.name, KDL::Joint::Fixed);
      if (J.type == "revolute" || J.type == "continuous") jt = KDL::Joint(J.name, F.p, F.M * ax, KDL::Joint::RotAxis);
      else if (J.type == "prismatic") jt = KDL::Joint(J.name, F.p, F.M * ax, KDL::Joint::TransAxis);
      auto L = links.find(J.child);
      if (L == links.end() || !k->tree.addSegment(KDL::Segment(J.child, jt, F, inertia(L->second)), J.parent)) {
        P.fail("cannot add link '%s'", J.child.c_str());
        delete k;
        return nullptr;
      }
      done[j] = progress = true;
    }
  }
  for (size_t j = 0; j < joints.size(); j++)
    if (!done[j]) { P.fail("joint '%s' is not below the root", joints[j].name.c_str()); delete k; return nullptr; }

  const unsigned nj = k->tree.getNrOfJoints();
  k->jname.assign(nj, "");
  k->damping.assign(nj, 0); k->friction.assign(nj, 0); k->armature.assign(nj, 0); k->offset.assign(nj, 0);
  std::map<std::string, const UJoint*> byname;
  for (const UJoint& J : joints) byname[J.name] = &J;
  for (const auto& e : k->tree.getSegments()) {
    const KDL::Segment& s = GetTreeElementSegment(e.second);
    if (s.getJoint().getType() == KDL::Joint::None) continue;
    unsigned qn = GetTreeElementQNr(e.second);
    const UJoint* J = byname[s.getJoint().getName()];
    k->jname[qn] = J->name;
    k->damping[qn] = J->dyn[0]; k->friction[qn] = J->dyn[1];
    k->armature[qn] = J->dyn[2]; k->offset[qn] = J->dyn[3];
  }
  k->q.resize(nj); k->qd.resize(nj); k->qdd.resize(nj); k->tau.resize(nj); k->held.resize(nj);
  SetToZero(k->held);
  k->id = new KDL::TreeIdSolver_RNE(k->tree, KDL::Vector(0, 0, -9.81));
  return k;
}

extern "C" void kdl_urdf_free(kdl_urdf* k) {
  if (!k) return;
  delete k->id;
  delete k;
}

extern "C" int kdl_urdf_njoint(const kdl_urdf* k) { return (int)k->jname.size(); }

static int joint_index(const kdl_urdf* k, const char* name) {
  for (size_t i = 0; i < k->jname.size(); i++)
    if (k->jname[i] == name) return (int)i;
  return -1;
}

extern "C" int kdl_urdf_hold(kdl_urdf* k, const char* joint, double q) {
  int i = joint_index(k, joint);
  if (i < 0) return -1;
  k->held(i) = q;
  return 0;
}

extern "C" int kdl_urdf_id(kdl_urdf* k, const char* const* names, int nj, const double* q, const double* qd,
                           const double* qdd, double* tau) {
  k->q = k->held;
  SetToZero(k->qd);
  SetToZero(k->qdd);
  for (int j = 0; j < nj; j++) {
    int i = joint_index(k, names[j]);
    if (i < 0) return -1;
    k->q(i) = q[j]; k->qd(i) = qd[j]; k->qdd(i) = qdd[j];
  }
  if (k->id->CartToJnt(k->q, k->qd, k->qdd, k->fext, k->tau) < 0) return -1;
  for (int j = 0; j < nj; j++) {
    int i = joint_index(k, names[j]);
    double s = qd[j] > 0 ? 1 : qd[j] < 0 ? -1 : 0;
    tau[j] = k->tau(i) + k->damping[i]*qd[j] + k->friction[i]*s + k->armature[i]*qdd[j] + k->offset[i];
  }
  return 0;
}

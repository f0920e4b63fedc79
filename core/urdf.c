/* SPDX-License-Identifier: MIT */
/* dynid core: the URDF reader (libxml2). A URDF tree becomes the serial
 * modified-DH chain of model.h between a base link and a tip link.
 *
 * What is read. Direct children <link> and <joint> of <robot> (a <joint>
 * inside <transmission> is not a joint). Joint types revolute, continuous
 * (= revolute without position limits), prismatic and fixed; floating and
 * planar joints anywhere in the file are an error. <origin xyz rpy> (first
 * one; rpy = fixed-axis roll-pitch-yaw, R = Rz(y) Ry(p) Rx(r)), <axis xyz>
 * (default 1 0 0, normalised; zero is an error on a moving joint), <limit
 * lower upper velocity effort> (an absent attribute, or a velocity/effort
 * <= 0, means "no limit"), <inertial> with <origin>, <mass> and <inertia>
 * (about the centre of mass, in the inertial frame; tensor entries),
 * <dynamics damping friction armature offset> of a moving joint (absent
 * attribute 0; armature and offset are dynid's additions: rotor inertia
 * seen at the joint [kg m^2|kg] and a constant torque offset [N m|N]; all
 * but offset must be >= 0). On a chain joint j they are its joint parameters
 *   tau_j += armature qdd_j + damping qd_j + friction sign(qd_j) + offset
 * (IA FV FC FO), and m->has_friction = 1 if any chain joint has <dynamics>.
 * <mimic> is not read: a mimic joint on the chain is an independent joint.
 * <collision> and <visual> elements give the bounding ellipsoids (below):
 * their <origin> and the primitive of their <geometry>, <box size>,
 * <cylinder radius length> (axis: its local z) or <sphere radius> (sizes
 * >= 0); <mesh> and other shapes are not read.
 *
 * The chain. base = --base or the root link; the joints from the root to the
 * base must all be fixed (their transform and the gravity rotation are kept).
 * tip = --tip, or, without it, the end of the one branch below the base that
 * holds moving joints: at each link the child joints that lead to a moving
 * joint are followed; two or more such branches are an error that names the
 * candidate tips; from the child link of the last moving joint the tip then
 * follows a single fixed child (tool0, ee_link, flange...) as far as that
 * chain is unbranched. The DH body j is the child link of moving joint j plus
 * every link hanging from it through fixed joints (tools, flanges, covers,
 * cameras): their masses, centres of mass and inertias are summed in frame j.
 * Links fixed to the base are ground and dropped.
 *
 * Bounding ellipsoids (m->link_ell, in DH frame j). Body j's primitives,
 * those of <collision> elements of all its links (merged like the
 * inertias, locked subtrees included), or, when there is none, those of
 * its <visual> elements, are placed in frame j as the inertias are, and
 * their exact axis-aligned bounding box there taken (box: its rotated
 * corners; sphere: centre +- r; cylinder with unit axis u in frame j:
 * half-extent |u_k| l/2 + r sqrt(1 - u_k^2) along axis k). The ellipsoid
 * is the one through the box's corners: its centre, semi-axes sqrt(3)
 * times the half-extents, at least 1 mm. Body 0's geometry is ground and
 * dropped; a body with meshes only has none (all zero; the consistent
 * estimate then derives one from the link's kinematics and says so).
 *
 * Locked joints. A moving joint off the chain that hangs from a link of a
 * body 0..n (a pan-tilt head on the torso, gripper fingers on the last link,
 * the rest of the arm below a --tip) is locked: held at q = 0, or at the
 * value of opt->lock_q [rad for revolute and continuous, m for prismatic],
 * and its whole subtree, moving joints below it locked the same way, joins
 * that body exactly like links fixed to it (its pose at the locked
 * positions, masses, centres of mass and inertias summed in frame j). A
 * subtree locked onto body 0 is ground: it changes nothing. Each locked
 * joint adds one line to m->notes:
 *   locked joint 'head_1_joint' at 0 rad: 1.53 kg merged into link 1 (torso_lift_link)
 * (the mass of the joint's whole subtree). Links that are not below the base
 * (wheels under a mobile base when --base is the torso) stay out. A lock on
 * a joint that is undefined, fixed, on the chain, not below the base, given
 * twice, or outside the joint's limits is an error.
 *
 * Frames. All joint axes are first placed in the base-link frame at q = 0
 * (axis j: point p_j = the joint origin, unit direction u_j = the URDF axis
 * with its sign). DH frame j (1 <= j <= n) then has
 *   z_j = u_j (same sign as the URDF axis, so q_dh = q_urdf, also for an
 *         axis written as 0 0 -1 or 0 -1 0);
 *   skew or intersecting axes j, j+1: x_j = u_j x u_{j+1} / |..|, turned
 *         round if that makes a_{j+1} negative (a >= 0 for skew axes); O_j
 *         is the foot of the common normal on axis j;
 *   parallel axes (|u_j x u_{j+1}| < 1e-10): O_j is where x_{j-1} meets
 *         axis j (d_j = 0), x_j points from there perpendicularly to axis
 *         j+1; coincident axes (distance < 1e-10 m): x_j = x_{j-1} (theta_j
 *         = 0 at q = 0, a_{j+1} = 0);
 *   last joint: O_n where x_{n-1} meets axis n and x_n = x_{n-1} (d_n = 0,
 *         theta_n = 0 at q = 0); the tip link's pose in frame n is tip_T.
 * Frame 0 has z_0 = u_1, origin the point of axis 1 nearest the base-link
 * origin and x_0 the base x axis projected on the plane normal to u_1 (the
 * y axis when x is nearly along u_1), so alpha_1 = a_1 = 0 and frame 0 is
 * the base-link frame itself whenever axis 1 is the base z axis (the usual
 * table, d_1 = shoulder height). base_T = frame 0 in the base-link frame.
 * alpha, a, theta, d are read off the relative transforms of these frames;
 * joint zero positions (the URDF q = 0) are in theta_j (revolute) and d_j
 * (prismatic). A prismatic axis has a direction but no line of its own:
 * its line is moved to meet a neighbouring revolute axis (the next one
 * unless the previous one is nearer to parallel; see place_prismatic), so
 * that a = 0 there, as in the textbook tables of SCARA and gantry arms.
 * Nearly parallel revolute axes that are not parallel to 1e-10 keep their
 * exact common normal, which lies far away (d ~ offset / angle: 4e4 m for
 * 0.4 m and 1e-5 rad, as rounded rpy like 3.1416 can produce): the
 * kinematics stay exact (load_fk_err 1e-11 there, 7e-8 at 1e-9 rad), but
 * inertias about such a distant O_j keep fewer digits (relative error
 * ~1e-16 d^2 / r_gyration^2).
 *
 * Gravity (0, 0, -9.81) in the root-link frame is rotated into frame 0.
 * load_fk_err: over 100 pseudo-random configurations, the largest difference
 * between the URDF forward kinematics (joint origins and axes chained
 * directly, without the DH frames) and dy_fk of the model, for the tip pose
 * (rotation entries and position) and, for every moving joint, the axis
 * direction and (revolute joints) the distance of O_j from the URDF axis line.
 *
 * Errors: "FILE:LINE: what is wrong", LINE the line of the offending element. */
#include "core/io.h"
#include "core/transmission.h"
#include "core/mathu.h"
#include "core/util.h"
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* libxml2's functions (and its xmlFree, a variable: its address), loaded
 * at the first URDF read (util.h dy_dlsyms): xml.f in the table's order,
 * named by the macros below so that the code reads as libxml2's own calls */
#define XML_FUNCS(X) X(xmlNewParserCtxt) X(xmlCtxtReadMemory) X(xmlCtxtGetLastError) X(xmlFreeParserCtxt) \
  X(xmlFreeDoc) X(xmlDocGetRootElement) X(xmlGetLineNo) X(xmlGetProp) X(xmlNodeGetContent) X(xmlStrcmp) \
  X(xmlFree)
#define X(f) +1
enum { XML_N = 0 XML_FUNCS(X) };
#undef X
static union {
  struct {
#define X(f) __typeof__(&f) f;
    XML_FUNCS(X)
#undef X
  } f;
  dyFn v[XML_N];
} xml;
static const char* const xml_names[] = {
#define X(f) #f,
  XML_FUNCS(X)
#undef X
};
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static int xml_rc;
static char xml_err[256];
static void xml_load(void) {
  static const char* const libs[] = {"libxml2.so.2", "libxml2.so", NULL};
  xml_rc = dy_dlsyms(libs, "libxml2", xml_names, XML_N, xml.v, xml_err, sizeof xml_err);
}
#define xmlNewParserCtxt xml.f.xmlNewParserCtxt
#define xmlCtxtReadMemory xml.f.xmlCtxtReadMemory
#define xmlCtxtGetLastError xml.f.xmlCtxtGetLastError
#define xmlFreeParserCtxt xml.f.xmlFreeParserCtxt
#define xmlFreeDoc xml.f.xmlFreeDoc
#define xmlDocGetRootElement xml.f.xmlDocGetRootElement
#define xmlGetLineNo xml.f.xmlGetLineNo
#define xmlGetProp xml.f.xmlGetProp
#define xmlNodeGetContent xml.f.xmlNodeGetContent
#define xmlStrcmp xml.f.xmlStrcmp
#define xmlFree (*xml.f.xmlFree)   /* a variable of libxml2's: its address */

#define PAR_EPS 1e-10     /* |u_j x u_j+1| below which axes are parallel */
#define COIN_EPS 1e-10    /* [m] distance below which parallel axes coincide */
#define URDF_MAXBYTES (64L << 20)  /* a URDF is read whole: larger files are refused */

typedef enum { J_FIXED, J_REVOLUTE, J_CONTINUOUS, J_PRISMATIC } jtype_t;

typedef struct {
  char* name;          /* owned by the document (xmlChar*) */
  long line;
  xmlNodePtr node;     /* the <link> element (its <collision> and <visual>) */
  int parent_joint;    /* joint whose child this link is, -1: none */
  int has_inertial;
  double mass, com[3], com_rpy[3], I6[6];   /* URDF inertial */
  int body;            /* DH body 0..n, -1: not in the model, -2: unvisited */
  double T[12];        /* pose in the base-link frame at q = 0 (R row-major, p) */
  int moving_below;    /* 1 if a moving joint is in its subtree */
} urdfLink;

typedef struct {
  char* name;
  long line;
  jtype_t type;
  int parent, child;   /* link indices */
  double xyz[3], rpy[3], axis[3];
  double lower, upper, velocity, effort;
  int has_dyn;         /* a <dynamics> element was read */
  double dyn[4];       /* IA FV FC FO from armature damping friction offset */
  double rpy_round[3]; /* how far each origin angle may be from the value its
                          written digits stand for (half a unit of its last
                          digit) [rad] */
  double snapped;      /* largest change of an origin angle by snapping [rad], 0: none */
  int nsnapped;        /* origin angles snapped */
  double lock_q;       /* position when locked off the chain [rad|m] */
  int lock_given;      /* 1: lock_q came from opt->lock_q */
} urdfJoint;

typedef struct {
  const char* path;
  char* err;
  int errsz;
  xmlDocPtr doc;
  urdfLink* links;
  int nlink;
  urdfJoint* joints;
  int njoint;
  int* child_start;    /* CSR list of child joints per link (nlink+1) */
  int* child_list;     /* (njoint) */
  int* order;          /* links in breadth-first order from the root (nlink) */
  int* mark;           /* scratch (nlink) */
} urdfDoc;

static int fail(urdfDoc* u, long line, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) dy_errpos(u->err, u->errsz, u->path, line, 0, "%s", msg);
  else snprintf(u->err, (size_t)u->errsz, "%s: %s", u->path, msg);
  return -1;
}

/* ------------------------------------------------------------ small math */

/* URDF rpy: R = Rz(yaw) Ry(pitch) Rx(roll) */
static void rpy_to_R(double R[9], const double rpy[3]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  R[0] = cy*cp; R[1] = cy*sp*sr - sy*cr; R[2] = cy*sp*cr + sy*sr;
  R[3] = sy*cp; R[4] = sy*sp*sr + cy*cr; R[5] = sy*sp*cr - cy*sr;
  R[6] = -sp;   R[7] = cp*sr;            R[8] = cp*cr;
}

/* rotation by angle q about the unit axis u (Rodrigues) */
static void axis_angle(double R[9], const double u[3], double q) {
  double c = cos(q), s = sin(q), v = 1 - c;
  R[0] = c + u[0]*u[0]*v;      R[1] = u[0]*u[1]*v - u[2]*s; R[2] = u[0]*u[2]*v + u[1]*s;
  R[3] = u[1]*u[0]*v + u[2]*s; R[4] = c + u[1]*u[1]*v;      R[5] = u[1]*u[2]*v - u[0]*s;
  R[6] = u[2]*u[0]*v - u[1]*s; R[7] = u[2]*u[1]*v + u[0]*s; R[8] = c + u[2]*u[2]*v;
}

/* T = A B for poses stored as R (row-major 9) then p (3) */
static void pose_mul(double T[12], const double A[12], const double B[12]) {
  double t[12];
  dyu_composePose(t, t + 9, A, A + 9, B, B + 9);
  memcpy(T, t, sizeof t);
}

/* T = A^-1 B */
static void pose_invmul(double T[12], const double A[12], const double B[12]) {
  double d[3] = {B[9] - A[9], B[10] - A[10], B[11] - A[11]};
  dyu_mulMatTMat3(T, A, B);
  dyu_mulMatTVec3(T + 9, A, d);
}

static void pose_eye(double T[12]) { dyu_eye3(T); T[9] = T[10] = T[11] = 0; }

static void pose_from_xyz_rpy(double T[12], const double xyz[3], const double rpy[3]) {
  rpy_to_R(T, rpy);
  memcpy(T + 9, xyz, 3 * sizeof(double));
}

static double norm3(const double v[3]) { return sqrt(dyu_dot3(v, v)); }

/* v := unit(v - (v.z) z); returns the norm before normalising */
static double orth_normalize(double v[3], const double z[3]) {
  double s = dyu_dot3(v, z);
  for (int k = 0; k < 3; k++) v[k] -= s * z[k];
  double nv = norm3(v);
  if (nv > 0) for (int k = 0; k < 3; k++) v[k] /= nv;
  return nv;
}

/* frame from its x and z axes (unit, orthogonal) and origin o */
static void frame_from_xz(double F[12], const double x[3], const double z[3], const double o[3]) {
  double y[3];
  dyu_cross(y, z, x);
  for (int k = 0; k < 3; k++) { F[3*k] = x[k]; F[3*k+1] = y[k]; F[3*k+2] = z[k]; F[9+k] = o[k]; }
}

/* ------------------------------------------------------------ XML access */

static xmlNodePtr child_elem(xmlNodePtr n, const char* name) {
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !xmlStrcmp(c->name, (const xmlChar*)name)) return c;
  return NULL;
}

/* parse exactly cnt finite numbers separated by blanks from attribute attr of
 * node; absent attribute: leave out[] untouched and return 0 with *found = 0 */
static int attr_nums(urdfDoc* u, xmlNodePtr node, const char* attr, double* out, int cnt,
                     int* found) {
  xmlChar* s = xmlGetProp(node, (const xmlChar*)attr);
  if (found) *found = s != NULL;
  if (!s) return 0;
  long line = xmlGetLineNo(node);
  const char* p = (const char*)s;
  int r = 0;
  for (int k = 0; k < cnt && !r; k++) {
    char* end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p) {
      while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
      if (*p) r = fail(u, line, "<%s %s=\"%.40s\">: '%.20s' is not a number", node->name, attr, s, p);
      else r = fail(u, line, "<%s %s=\"%.40s\">: %d number%s expected, found %d", node->name, attr, s,
                    cnt, cnt > 1 ? "s" : "", k);
    } else if (!isfinite(v)) {
      r = fail(u, line, "<%s %s=\"%.40s\">: not a finite number (%s)", node->name, attr, s,
               errno == ERANGE ? "overflow" : "NaN or infinity");
    } else {
      out[k] = v;
      p = end;
    }
  }
  if (!r) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p) r = fail(u, line, "<%s %s=\"%.40s\">: unexpected '%.20s' after %d number%s", node->name,
                     attr, s, p, cnt, cnt > 1 ? "s" : "");
  }
  xmlFree(s);
  return r;
}

/* <origin xyz rpy> child of node, identity when absent */
static int read_origin(urdfDoc* u, xmlNodePtr node, double xyz[3], double rpy[3]) {
  xyz[0] = xyz[1] = xyz[2] = 0;
  rpy[0] = rpy[1] = rpy[2] = 0;
  xmlNodePtr o = child_elem(node, "origin");
  if (!o) return 0;
  if (attr_nums(u, o, "xyz", xyz, 3, NULL)) return -1;
  return attr_nums(u, o, "rpy", rpy, 3, NULL);
}

static int find_link(const urdfDoc* u, const char* name) {
  for (int i = 0; i < u->nlink; i++)
    if (!strcmp(u->links[i].name, name)) return i;
  return -1;
}

static int read_link(urdfDoc* u, xmlNodePtr node, urdfLink* L) {
  L->line = xmlGetLineNo(node);
  L->node = node;
  L->parent_joint = -1;
  L->body = -2;
  L->name = (char*)xmlGetProp(node, (const xmlChar*)"name");
  if (!L->name || !L->name[0]) return fail(u, L->line, "<link> without a name");
  xmlNodePtr in = child_elem(node, "inertial");
  if (!in) return 0;
  L->has_inertial = 1;
  if (read_origin(u, in, L->com, L->com_rpy)) return -1;
  xmlNodePtr mass = child_elem(in, "mass"), inertia = child_elem(in, "inertia");
  if (!mass) return fail(u, xmlGetLineNo(in), "link '%s': <inertial> without <mass>", L->name);
  if (!inertia) return fail(u, xmlGetLineNo(in), "link '%s': <inertial> without <inertia>", L->name);
  int found;
  if (attr_nums(u, mass, "value", &L->mass, 1, &found)) return -1;
  if (!found) return fail(u, xmlGetLineNo(mass), "link '%s': <mass> without value", L->name);
  if (L->mass < 0) return fail(u, xmlGetLineNo(mass), "link '%s': negative mass %g", L->name, L->mass);
  static const char* const in_names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  for (int k = 0; k < 6; k++) {
    if (attr_nums(u, inertia, in_names[k], L->I6 + k, 1, &found)) return -1;
    if (!found) return fail(u, xmlGetLineNo(inertia), "link '%s': <inertia> without %s", L->name, in_names[k]);
  }
  return 0;
}

/* link attribute of the <parent>/<child> element of a joint */
static int joint_end(urdfDoc* u, xmlNodePtr node, const urdfJoint* J, const char* which, int* idx) {
  xmlNodePtr e = child_elem(node, which);
  if (!e) return fail(u, J->line, "joint '%s' has no <%s>", J->name, which);
  xmlChar* ln = xmlGetProp(e, (const xmlChar*)"link");
  if (!ln) return fail(u, xmlGetLineNo(e), "joint '%s': <%s> without link=", J->name, which);
  *idx = find_link(u, (const char*)ln);
  int r = 0;
  if (*idx < 0) r = fail(u, xmlGetLineNo(e), "joint '%s' names %s link '%.80s', which is not defined",
                         J->name, which, (const char*)ln);
  xmlFree(ln);
  return r;
}

/* half a unit of the last written digit of each number of <origin rpy>:
 * "1.5708" stands for anything within 5e-5 of it (0 where absent) */
static void rounding(xmlNodePtr origin, double half_ulp[3]) {
  half_ulp[0] = half_ulp[1] = half_ulp[2] = 0;
  xmlChar* s = origin ? xmlGetProp(origin, (const xmlChar*)"rpy") : NULL;
  if (!s) return;
  const char* p = (const char*)s;
  for (int k = 0; k < 3; k++) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    int after_point = 0, seen_point = 0;
    for (; (*p >= '0' && *p <= '9') || *p == '.' || *p == '+' || *p == '-'; p++) {
      if (*p == '.') seen_point = 1;
      else if (*p >= '0' && *p <= '9' && seen_point) after_point++;
    }
    int ex = 0;
    if (*p == 'e' || *p == 'E') { ex = (int)strtol(p + 1, (char**)&p, 10); }
    half_ulp[k] = 0.5 * pow(10, ex - after_point);
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
  }
  xmlFree(s);
}

static int read_joint(urdfDoc* u, xmlNodePtr node, urdfJoint* J) {
  J->line = xmlGetLineNo(node);
  J->lower = -INFINITY; J->upper = INFINITY; J->velocity = INFINITY; J->effort = INFINITY;
  J->name = (char*)xmlGetProp(node, (const xmlChar*)"name");
  if (!J->name || !J->name[0]) return fail(u, J->line, "<joint> without a name");
  xmlChar* t = xmlGetProp(node, (const xmlChar*)"type");
  if (!t) return fail(u, J->line, "joint '%s' has no type", J->name);
  const char* ts = (const char*)t;
  int bad = 0;
  if (!strcmp(ts, "fixed")) J->type = J_FIXED;
  else if (!strcmp(ts, "revolute")) J->type = J_REVOLUTE;
  else if (!strcmp(ts, "continuous")) J->type = J_CONTINUOUS;
  else if (!strcmp(ts, "prismatic")) J->type = J_PRISMATIC;
  else bad = 1;
  if (bad) {
    int known = !strcmp(ts, "floating") || !strcmp(ts, "planar");
    fail(u, J->line, known ? "joint '%s' is %.20s: only revolute, continuous, prismatic and fixed joints "
                             "can be converted to a DH chain"
                           : "joint '%s' has unknown type '%.20s' (revolute, continuous, prismatic or fixed)",
         J->name, ts);
    xmlFree(t);
    return -1;
  }
  xmlFree(t);
  if (read_origin(u, node, J->xyz, J->rpy)) return -1;
  rounding(child_elem(node, "origin"), J->rpy_round);
  if (joint_end(u, node, J, "parent", &J->parent) || joint_end(u, node, J, "child", &J->child)) return -1;
  if (J->type == J_FIXED) return 0;
  J->axis[0] = 1; J->axis[1] = J->axis[2] = 0;
  xmlNodePtr ax = child_elem(node, "axis");
  if (ax && attr_nums(u, ax, "xyz", J->axis, 3, NULL)) return -1;
  double na = norm3(J->axis);
  if (!(na > 1e-12))
    return fail(u, ax ? xmlGetLineNo(ax) : J->line, "joint '%s': zero axis vector", J->name);
  for (int k = 0; k < 3; k++) J->axis[k] /= na;
  xmlNodePtr lim = child_elem(node, "limit");
  if (lim) {
    double v;
    int f;
    if (J->type != J_CONTINUOUS) {
      if (attr_nums(u, lim, "lower", &v, 1, &f)) return -1;
      if (f) J->lower = v;
      if (attr_nums(u, lim, "upper", &v, 1, &f)) return -1;
      if (f) J->upper = v;
      if (J->lower > J->upper)
        return fail(u, xmlGetLineNo(lim), "joint '%s': lower limit %g above upper limit %g", J->name,
                    J->lower, J->upper);
    }
    if (attr_nums(u, lim, "velocity", &v, 1, &f)) return -1;
    if (f && v > 0) J->velocity = v;
    if (attr_nums(u, lim, "effort", &v, 1, &f)) return -1;
    if (f && v > 0) J->effort = v;
  }
  xmlNodePtr dyn = child_elem(node, "dynamics");
  if (dyn) {
    /* attribute of each of IA FV FC FO; the offset has a sign */
    static const char* const dyn_attr[4] = {"armature", "damping", "friction", "offset"};
    J->has_dyn = 1;
    for (int k = 0; k < 4; k++)
      if (attr_nums(u, dyn, dyn_attr[k], J->dyn + k, 1, NULL)) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ the tree */

static int is_moving(const urdfJoint* J) { return J->type != J_FIXED; }

/* an edge parent -> child "leads to motion" if its joint moves or a moving
 * joint hangs below the child (links[].moving_below, set from the leaves up) */
static int leads_to_motion(const urdfDoc* u, const urdfJoint* J) {
  return is_moving(J) || u->links[J->child].moving_below;
}

/* the candidate tips below link l, for the branch error: every link below l
 * entered through an edge that leads to motion and with no motion below it
 * (u->order lists the links parents first; mark[] is scratch, nlink) */
static void moving_ends(const urdfDoc* u, int l, int* mark, char* buf, size_t bufsz) {
  int count = 0;
  memset(mark, 0, (size_t)u->nlink * sizeof(int));
  mark[l] = 1;
  for (int i = 0; i < u->nlink; i++) {
    int x = u->order[i];
    const urdfLink* X = u->links + x;
    if (x == l || X->parent_joint < 0 || !mark[u->joints[X->parent_joint].parent]) continue;
    mark[x] = 1;
    if (!leads_to_motion(u, u->joints + X->parent_joint) || X->moving_below) continue;
    size_t len = strlen(buf);
    if (count < 8) snprintf(buf + len, bufsz - len, "%s'%s'", count ? ", " : "", X->name);
    else if (count == 8) snprintf(buf + len, bufsz - len, ", ...");
    count++;
  }
}

/* body of every link below the base and its pose in the base-link frame,
 * chain joints at q = 0 and joints off the chain at their lock_q: the base
 * and links fixed to it are body 0, the child of chain joint k and links
 * fixed to it body k, a link beyond a joint off the chain (locked) the body
 * of that joint's parent link; links not below the base stay -2 */
static void mark_bodies(urdfDoc* u, int base, const int* chain_joint_of) {
  u->links[base].body = 0;
  pose_eye(u->links[base].T);
  for (int i = 0; i < u->nlink; i++) {
    urdfLink* X = u->links + u->order[i];
    if (X->parent_joint < 0) continue;
    const urdfJoint* J = u->joints + X->parent_joint;
    const urdfLink* P = u->links + J->parent;
    if (P->body == -2 || X == u->links + base) continue;
    double Tj[12], M[12];
    pose_from_xyz_rpy(Tj, J->xyz, J->rpy);
    pose_mul(X->T, P->T, Tj);
    int on_chain = chain_joint_of[X->parent_joint] > 0;
    X->body = on_chain ? chain_joint_of[X->parent_joint] : P->body;
    if (!is_moving(J) || on_chain) continue;
    /* locked: the child frame moved by the joint at lock_q */
    pose_eye(M);
    if (J->type == J_PRISMATIC) for (int a = 0; a < 3; a++) M[9+a] = J->lock_q * J->axis[a];
    else axis_angle(M, J->axis, J->lock_q);
    pose_mul(X->T, X->T, M);
  }
}

/* ------------------------------------------------------------ locks */

static int find_joint(const urdfDoc* u, const char* name) {
  for (int j = 0; j < u->njoint; j++)
    if (!strcmp(u->joints[j].name, name)) return j;
  return -1;
}

/* opt->lock_q[i] onto joint opt->lock_joint[i] (lock_q, lock_given); an
 * error for a joint that is undefined, fixed or on the chain (chain_joint_of
 * > 0), given twice, and for a position that is not finite or outside the
 * joint's limits [rad|m] */
static int set_locks(urdfDoc* u, const dyLoadOpt* opt, const int* chain_joint_of, int base, int tip) {
  for (int i = 0; opt && i < opt->nlock; i++) {
    const char* name = opt->lock_joint[i];
    double q = opt->lock_q[i];
    int j = find_joint(u, name);
    if (j < 0) return fail(u, 0, "--lock '%.80s': no joint of that name", name);
    urdfJoint* J = u->joints + j;
    const char* unit = J->type == J_PRISMATIC ? "m" : "rad";
    if (!is_moving(J))
      return fail(u, J->line, "--lock '%s' is a fixed joint; only moving joints off the chain can be locked",
                  J->name);
    if (chain_joint_of[j] > 0)
      return fail(u, J->line, "--lock '%s' is on the chain between '%s' and '%s'; only joints off the chain "
                  "can be locked", J->name, u->links[base].name, u->links[tip].name);
    if (J->lock_given) return fail(u, 0, "--lock '%s' is given twice", J->name);
    if (!isfinite(q)) return fail(u, 0, "--lock '%s': position %g is not a finite number", J->name, q);
    if (q < J->lower || q > J->upper)
      return fail(u, J->line, "--lock '%s' at %g %s is outside the joint's limits [%g, %g] %s", J->name, q,
                  unit, J->lower, J->upper, unit);
    J->lock_q = q;
    J->lock_given = 1;
  }
  return 0;
}

/* after mark_bodies: a --lock on a joint that is not below the base (not in
 * the model) is an error; then one note per locked joint (moving, off the
 * chain, parent link in a body), parents first, into m->notes:
 *   locked joint 'NAME' at Q rad|m: M kg merged into link j (LINK)
 * M = the mass of the joint's whole subtree [kg]; body_link[j] = the link
 * that names body j (0: the base); sub = scratch (nlink) */
static int lock_notes(urdfDoc* u, dyModel* m, const int* chain_joint_of, const int* body_link, double* sub) {
  for (int j = 0; j < u->njoint; j++) {
    const urdfJoint* J = u->joints + j;
    if (J->lock_given && u->links[J->parent].body == -2)
      return fail(u, J->line, "--lock '%s': the joint does not hang below the base '%s', so it is not part "
                  "of the model", J->name, u->links[body_link[0]].name);
  }
  for (int i = u->nlink - 1; i >= 0; i--) {   /* subtree masses, leaves first */
    int l = u->order[i];
    sub[l] = u->links[l].has_inertial ? u->links[l].mass : 0;
    for (int c = u->child_start[l]; c < u->child_start[l+1]; c++) sub[l] += sub[u->joints[u->child_list[c]].child];
  }
  size_t cap = sizeof m->notes - 64, len = strlen(m->notes);   /* 64: room for the overflow line */
  int more = 0;
  for (int i = 0; i < u->nlink; i++) {
    const urdfLink* X = u->links + u->order[i];
    if (X->parent_joint < 0 || X->body < 0) continue;
    const urdfJoint* J = u->joints + X->parent_joint;
    if (!is_moving(J) || chain_joint_of[X->parent_joint] > 0) continue;
    char line[400];
    int k = X->body == 0
      ? snprintf(line, sizeof line, "locked joint '%s' at %g %s: %g kg merged into the base (%s), which is "
                 "ground: no effect on the dynamics\n", J->name, J->lock_q, J->type == J_PRISMATIC ? "m" : "rad",
                 sub[J->child], u->links[body_link[0]].name)
      : snprintf(line, sizeof line, "locked joint '%s' at %g %s: %g kg merged into link %d (%s)\n", J->name,
                 J->lock_q, J->type == J_PRISMATIC ? "m" : "rad", sub[J->child], X->body,
                 u->links[body_link[X->body]].name);
    if (k > 0 && (size_t)k < sizeof line && len + (size_t)k < cap) {
      memcpy(m->notes + len, line, (size_t)k + 1);
      len += (size_t)k;
    } else {
      more++;
    }
  }
  if (more)
    snprintf(m->notes + len, sizeof m->notes - len, "%d more locked joint%s, not listed\n", more,
             more > 1 ? "s" : "");
  return 0;
}

/* ------------------------------------------------------------ FK check */

/* URDF forward kinematics along the chain joints cj[0..nc-1] (base to tip)
 * at joint positions q (moving joints in order); returns the tip pose and
 * each moving joint's axis point and direction in the base-link frame */
static void urdf_fk(const urdfDoc* u, const int* cj, int nc, const double* q, double tip[12],
                    double* axp, double* axu) {
  double T[12], Tj[12], M[12];
  pose_eye(T);
  int k = 0;
  for (int i = 0; i < nc; i++) {
    const urdfJoint* J = u->joints + cj[i];
    pose_from_xyz_rpy(Tj, J->xyz, J->rpy);
    pose_mul(T, T, Tj);
    if (is_moving(J)) {
      memcpy(axp + 3*k, T + 9, 3 * sizeof(double));
      dyu_mulMatVec3(axu + 3*k, T, J->axis);
      pose_eye(M);
      if (J->type == J_PRISMATIC) for (int a = 0; a < 3; a++) M[9+a] = q[k] * J->axis[a];
      else axis_angle(M, J->axis, q[k]);
      pose_mul(T, T, M);
      k++;
    }
  }
  memcpy(tip, T, sizeof T);
}

static double fk_err(const urdfDoc* u, const dyModel* m, const int* cj, int nc) {
  int n = m->n;
  double q[DY_MAXJ], axp[3*DY_MAXJ], axu[3*DY_MAXJ], tip[12], R[9], p[3], worst = 0;
  unsigned long long s = 0x9E3779B97F4A7C15ull;
  for (int trial = 0; trial < 100; trial++) {
    for (int j = 0; j < n; j++) {
      double r = dy_rng_u01(dy_rng_lcg(&s));   /* [0, 1) */
      q[j] = m->jnt_type[j] == DY_REVOLUTE ? (2*r - 1) * M_PI : (2*r - 1);
    }
    urdf_fk(u, cj, nc, q, tip, axp, axu);
    dy_fk(m, q, n, R, p);
    for (int k = 0; k < 9; k++) worst = fmax(worst, fabs(R[k] - tip[k]));
    for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(p[k] - tip[9+k]));
    for (int j = 0; j < n; j++) {
      dy_fk(m, q, j, R, p);
      double z[3] = {R[2], R[5], R[8]}, d[3], c[3];
      for (int k = 0; k < 3; k++) { worst = fmax(worst, fabs(z[k] - axu[3*j+k])); d[k] = p[k] - axp[3*j+k]; }
      dyu_cross(c, d, axu + 3*j);   /* a prismatic axis has a direction only */
      if (m->jnt_type[j] == DY_REVOLUTE) worst = fmax(worst, norm3(c));
    }
  }
  return worst;
}

/* ------------------------------------------------------------ conversion */

/* DH frames F[0..n] (12 each, base-link frame) from axis points p and unit
 * directions uax (3n each); see the top of the file */
static void dh_frames(double* F, const double* p, const double* uax, int n) {
  double x[3], o[3], t[3];
  /* frame 0 */
  const double* u1 = uax;
  double s = dyu_dot3(p, u1);
  for (int k = 0; k < 3; k++) o[k] = p[k] - s * u1[k];
  x[0] = 1; x[1] = 0; x[2] = 0;
  if (orth_normalize(x, u1) < 0.5) { x[0] = 0; x[1] = 1; x[2] = 0; orth_normalize(x, u1); }
  frame_from_xz(F, x, u1, o);
  for (int j = 1; j <= n; j++) {
    const double* uj = uax + 3*(j-1);
    const double* pj = p + 3*(j-1);
    const double* xprev = (const double[3]){F[12*(j-1)], F[12*(j-1)+3], F[12*(j-1)+6]};
    const double* oprev = F + 12*(j-1) + 9;
    /* where x_{j-1} meets axis j: the projection of O_{j-1} on axis j */
    double op[3];
    for (int k = 0; k < 3; k++) t[k] = oprev[k] - pj[k];
    s = dyu_dot3(t, uj);
    for (int k = 0; k < 3; k++) op[k] = pj[k] + s * uj[k];
    memcpy(x, xprev, sizeof x);
    memcpy(o, op, sizeof o);
    if (j < n) {
      const double* un = uax + 3*j;
      const double* pn = p + 3*j;
      double c[3];
      dyu_cross(c, uj, un);
      double sn = norm3(c);
      if (sn >= PAR_EPS) {
        /* common normal: closest points of the two lines, in the triple-
         * product form (round-off ~eps |w| / sin, not eps |w| / sin^2) */
        double w[3] = {pn[0] - pj[0], pn[1] - pj[1], pn[2] - pj[2]}, wu[3], f[3];
        dyu_cross(wu, w, un);
        double sj = dyu_dot3(wu, c) / (sn*sn);
        dyu_cross(wu, w, uj);
        double tn = dyu_dot3(wu, c) / (sn*sn);
        for (int k = 0; k < 3; k++) {
          o[k] = pj[k] + sj * uj[k];
          f[k] = pn[k] + tn * un[k];
          x[k] = c[k] / sn;
        }
        double g[3] = {f[0] - o[0], f[1] - o[1], f[2] - o[2]};
        if (dyu_dot3(g, x) < 0 && norm3(g) > COIN_EPS) for (int k = 0; k < 3; k++) x[k] = -x[k];
      } else {
        /* parallel: perpendicular from O_j (= op) to axis j+1 */
        double g[3] = {pn[0] - op[0], pn[1] - op[1], pn[2] - op[2]};
        if (orth_normalize(g, uj) > COIN_EPS) memcpy(x, g, sizeof x);
      }
    }
    orth_normalize(x, uj);
    frame_from_xz(F + 12*j, x, uj, o);
  }
}

/* A prismatic joint has a direction but no line: move its line (through
 * the URDF joint origin) to meet a neighbouring revolute axis, the next one
 * if it is revolute and not further from parallel than the previous one,
 * else the previous one (already placed). Meeting it, the common normal has
 * a = 0 at a finite point even when the two axes are nearly parallel, and
 * the table is the textbook one (SCARA, gantries). */
static void place_prismatic(double* p, const double* uax, const int* type, int n) {
  for (int j = 0; j < n; j++) {
    if (type[j] != DY_PRISMATIC) continue;
    double c[3], sprev = INFINITY, snext = INFINITY;
    if (j > 0) { dyu_cross(c, uax + 3*(j-1), uax + 3*j); sprev = norm3(c); }
    if (j + 1 < n && type[j+1] == DY_REVOLUTE) { dyu_cross(c, uax + 3*j, uax + 3*(j+1)); snext = norm3(c); }
    int k = snext <= sprev ? j + 1 : j > 0 ? j - 1 : -1;
    if (k < 0 || (k == j + 1 && !isfinite(snext))) continue;
    /* the point of axis k nearest the current point of line j */
    const double* q = p + 3*k, *u = uax + 3*k;
    double d[3] = {p[3*j] - q[0], p[3*j+1] - q[1], p[3*j+2] - q[2]};
    double t = dyu_dot3(d, u);
    for (int a = 0; a < 3; a++) p[3*j+a] = q[a] + t * u[a];
  }
}

/* alpha, a, theta, d of T(j-1 -> j) = Rx(alpha) Tx(a) Rz(theta) Tz(d) */
static void dh_params(const double T[12], double* alpha, double* a, double* theta, double* d) {
  *alpha = atan2(-T[5], T[8]);
  *theta = atan2(-T[1], T[0]);
  *a = T[9];
  *d = -sin(*alpha) * T[10] + cos(*alpha) * T[11];
}

static void free_urdf(urdfDoc* u) {
  for (int i = 0; i < u->nlink; i++) xmlFree(u->links[i].name);
  for (int i = 0; i < u->njoint; i++) xmlFree(u->joints[i].name);
  free(u->links); free(u->joints); free(u->child_start); free(u->child_list); free(u->order); free(u->mark);
  if (u->doc) xmlFreeDoc(u->doc);
}

/* read the file into memory and parse it (errors with the libxml2 line) */
static int parse_file(urdfDoc* u) {
  FILE* f = fopen(u->path, "rb");
  if (!f) return fail(u, 0, "cannot open: %s", strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    return fail(u, 0, "is a directory, expected a URDF file");
  }
  char* buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 65536 > cap) {
      cap = 2 * cap + 65536;
      char* nb = realloc(buf, cap);
      if (!nb) { free(buf); fclose(f); return fail(u, 0, "out of memory"); }
      buf = nb;
    }
    size_t r = fread(buf + len, 1, cap - len, f);
    len += r;
    if (r == 0) break;
    if (len > (size_t)URDF_MAXBYTES) {
      free(buf); fclose(f);
      return fail(u, 0, "larger than %ld MiB: not a URDF of one robot (is it the right file?)",
                  URDF_MAXBYTES >> 20);
    }
  }
  int rerr = ferror(f);
  fclose(f);
  if (rerr) { free(buf); return fail(u, 0, "read error"); }
  if (len == 0) { free(buf); return fail(u, 1, "empty file, expected a URDF <robot>"); }
  pthread_once(&xml_once, xml_load);
  if (xml_rc) { free(buf); return fail(u, 0, "%s", xml_err); }
  xmlParserCtxtPtr ctx = xmlNewParserCtxt();
  if (!ctx) { free(buf); return fail(u, 0, "out of memory"); }
  u->doc = xmlCtxtReadMemory(ctx, buf, (int)len, u->path, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                             XML_PARSE_BIG_LINES);
  free(buf);
  int r = 0;
  if (!u->doc) {
    const xmlError* e = xmlCtxtGetLastError(ctx);
    char msg[200];
    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "parse error");
    size_t ml = strlen(msg);
    while (ml && (msg[ml-1] == '\n' || msg[ml-1] == ' ')) msg[--ml] = 0;
    for (char* c = msg; *c; c++)          /* one line: libxml2 may add a second */
      if (*c == '\n' || *c == '\r') *c = ';';
      else if ((unsigned char)*c < 32 || (unsigned char)*c > 126) *c = '?';
    r = fail(u, e && e->line > 0 ? e->line : 1, "not a valid XML file: %s", msg);
  }
  xmlFreeParserCtxt(ctx);
  return r;
}

/* Angle snapping: a joint origin's roll, pitch or yaw within tol of a
 * multiple of pi/2, and within what its written digits can stand for
 * (half a unit of the last digit: 1.5708 for pi/2, not 1.5707963 for
 * pi/2 - 3e-8, nor a 17-digit value dynid wrote), becomes that multiple.
 * Exported URDFs round them
 * (3.1416, 1.5708): taken literally, neighbouring axes are then skew by
 * ~1e-5 rad, the common normals lie kilometres away, the base parameters
 * of the exact geometry split into more (72 instead of 69 on a Kinova
 * Gen3) and the identified values become absurd. Each joint whose largest
 * change exceeds 1e-10 rad (round-off below that) counts in one note in
 * m->notes (how many angles, which joints, the largest change), written
 * after the model exists (snap_notes). */
static void snap_angles(urdfDoc* u, double tol) {
  if (!(tol > 0)) return;
  for (int j = 0; j < u->njoint; j++) {
    urdfJoint* J = u->joints + j;
    for (int k = 0; k < 3; k++) {
      double mult = nearbyint(J->rpy[k] / M_PI_2), d = J->rpy[k] - mult * M_PI_2;
      if (fabs(d) <= tol && d != 0 && fabs(d) <= J->rpy_round[k] * (1 + 1e-9)) {
        J->rpy[k] = mult * M_PI_2;
        if (fabs(d) > 1e-10) J->nsnapped++;
        if (fabs(d) > fabs(J->snapped)) J->snapped = d;
      }
    }
  }
}

static void snap_notes(const urdfDoc* u, dyModel* m) {
  int nang = 0, first = -1, last = -1;
  double worst = 0;
  for (int j = 0; j < u->njoint; j++) {
    const urdfJoint* J = u->joints + j;
    if (!(fabs(J->snapped) > 1e-10)) continue;
    nang += J->nsnapped;
    if (first < 0) first = j;
    last = j;
    if (fabs(J->snapped) > fabs(worst)) worst = J->snapped;
  }
  if (first < 0) return;
  char which[160];
  if (first == last) snprintf(which, sizeof which, "joint '%s'", u->joints[first].name);
  else snprintf(which, sizeof which, "joints '%s' .. '%s'", u->joints[first].name, u->joints[last].name);
  size_t len = strlen(m->notes);
  dy_errpos(m->notes + len, sizeof m->notes - len, u->path, u->joints[first].line, 0, "%d joint-origin angle%s "
            "snapped to multiples of pi/2 (%s), largest change %.2g rad (--snap 0 keeps the file's angles)\n",
            nang, nang == 1 ? "" : "s", which, worst);
}


/* ------------------------------------------------------- transmissions
 * <transmission> elements as ros_control's transmission_interface defines
 * them (children of <robot> or of <ros2_control>), read with
 * dyLoadOpt.urdf_trans: the type (<type>, <plugin> or type=), the joints
 * and actuators (name=, <role> jointK / actuatorK or document order) and
 * their reductions n (<mechanicalReduction> or <mechanical_reduction>,
 * default 1). Motor velocities, row k for the motor of joint k:
 *   SimpleTransmission:         qd_a = n_a qd_j
 *   DifferentialTransmission:   qd_a1 = n_a1 (n_j1 qd_j1 + n_j2 qd_j2)
 *                               qd_a2 = n_a2 (n_j1 qd_j1 - n_j2 qd_j2)
 *   FourBarLinkageTransmission: qd_a1 = n_a1 n_j1 qd_j1
 *                               qd_a2 = n_a2 (qd_j1 + n_j2 qd_j2)
 * the torques by virtual work, tau = R^T tau_a (for the four-bar linkage
 * this is what the velocities imply; ros_control's effort map differs).
 * Joints without one keep a unit row. <offset> is not applied (noted). */

enum { TR_SIMPLE, TR_DIFF, TR_FOURBAR, TR_N };

/* the number in element name (or its snake_case spelling) under e; 0, with
 * *x = def when absent; -1 on a bad number */
static int trans_num(urdfDoc* u, xmlNodePtr e, const char* name, const char* alt, double def, double* x) {
  xmlNodePtr c = child_elem(e, name);
  if (!c && alt) c = child_elem(e, alt);
  *x = def;
  if (!c) return 0;
  xmlChar* s = xmlNodeGetContent(c);
  char* end;
  double v = s ? strtod((const char*)s, &end) : 0;
  int bad = !s || end == (char*)s || !isfinite(v) || v == 0;
  if (!bad) { while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r') end++; bad = *end != 0; }
  if (bad) fail(u, xmlGetLineNo(c), "<%s>: '%.30s' is not a non-zero finite number", name, s ? (const char*)s : "");
  else *x = v;
  xmlFree(s);
  return bad ? -1 : 0;
}

/* the first two <what> children in role order (role text ends in 1 or 2),
 * else document order; count found */
static int trans_parts(xmlNodePtr t, const char* what, xmlNodePtr part[2]) {
  int cnt = 0;
  part[0] = part[1] = NULL;
  for (xmlNodePtr c = t->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || xmlStrcmp(c->name, (const xmlChar*)what)) continue;
    xmlNodePtr r = child_elem(c, "role");
    xmlChar* s = r ? xmlNodeGetContent(r) : xmlGetProp(c, (const xmlChar*)"role");
    size_t L = s ? strlen((const char*)s) : 0;
    int k = L && (s[L-1] == '1' || s[L-1] == '2') ? s[L-1] - '1' : -1;
    xmlFree(s);
    if (k < 0) k = cnt < 2 ? cnt : 2;
    if (k < 2 && !part[k]) part[k] = c;
    cnt++;
  }
  return cnt;
}

/* the type of <transmission> t: TR_*, or -1 after the error */
static int trans_type(urdfDoc* u, xmlNodePtr t) {
  static const char* const names[TR_N] = {"SimpleTransmission", "DifferentialTransmission",
                                          "FourBarLinkageTransmission"};
  xmlNodePtr e = child_elem(t, "type");
  if (!e) e = child_elem(t, "plugin");
  xmlChar* s = e ? xmlNodeGetContent(e) : xmlGetProp(t, (const xmlChar*)"type");
  int k = -1;
  for (int i = 0; s && i < TR_N; i++) if (strstr((const char*)s, names[i])) k = i;
  if (k < 0) fail(u, xmlGetLineNo(e ? e : t), "<transmission> of type '%.60s': dynid reads SimpleTransmission, "
                  "DifferentialTransmission and FourBarLinkageTransmission", s ? (const char*)s : "");
  xmlFree(s);
  return k;
}

/* model index of the joint named by element e, -1 when not in the chain */
static int trans_joint(const dyModel* m, xmlNodePtr e) {
  xmlChar* s = xmlGetProp(e, (const xmlChar*)"name");
  int idx = -1;
  for (int j = 0; s && j < m->n; j++) if (!strcmp(m->jnt_name[j], (const char*)s)) idx = j;
  xmlFree(s);
  return idx;
}

/* one <transmission> into R (n x n); cnt[TR_N] counts it, cnt[TR_N] the
 * skipped (a joint outside the chain), cnt[TR_N + 1] the offsets given */
static int trans_one(urdfDoc* u, xmlNodePtr t, dyModel* m, double* R, int* cnt) {
  const int n = m->n;
  int type = trans_type(u, t);
  if (type < 0) return -1;
  xmlNodePtr jt[2], ac[2];
  int need = type == TR_SIMPLE ? 1 : 2;
  if (trans_parts(t, "joint", jt) < need || trans_parts(t, "actuator", ac) < need)
    return fail(u, xmlGetLineNo(t), "<transmission>: %d <joint> and %d <actuator> expected", need, need);
  double nj[2] = {1, 1}, na[2] = {1, 1}, off;
  int j[2] = {-1, -1};
  for (int i = 0; i < need; i++) {
    if (trans_num(u, jt[i], "mechanicalReduction", "mechanical_reduction", 1, &nj[i]) ||
        trans_num(u, ac[i], "mechanicalReduction", "mechanical_reduction", 1, &na[i]) ||
        trans_num(u, jt[i], "offset", NULL, 0, &off)) return -1;
    cnt[TR_N + 1] += off != 0;
    j[i] = trans_joint(m, jt[i]);
    if (j[i] < 0) { cnt[TR_N]++; return 0; }
  }
  double* r0 = R + n*j[0];
  if (type == TR_SIMPLE) r0[j[0]] = na[0] * nj[0];
  else {
    double* r1 = R + n*j[1];
    r0[j[0]] = na[0] * nj[0];
    r0[j[1]] = type == TR_DIFF ? na[0] * nj[1] : 0;
    r1[j[0]] = type == TR_DIFF ? na[1] * nj[0] : na[1];
    r1[j[1]] = type == TR_DIFF ? -na[1] * nj[1] : na[1] * nj[1];
  }
  cnt[type]++;
  return 0;
}

/* every transmission of the document into m (one note says what was read);
 * 0, or -1 after the error (none at all, a bad one, a singular R) */
static int urdf_transmissions(urdfDoc* u, xmlNodePtr root, dyModel* m) {
  const int n = m->n;
  double R[DY_MAXJ * DY_MAXJ] = {0};
  for (int j = 0; j < n; j++) R[j*n + j] = 1;
  int cnt[TR_N + 2] = {0};
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    xmlNodePtr group = !xmlStrcmp(c->name, (const xmlChar*)"ros2_control") ? c : NULL;
    for (xmlNodePtr t = group ? group->children : c; t; t = group ? t->next : NULL)
      if (t->type == XML_ELEMENT_NODE && !xmlStrcmp(t->name, (const xmlChar*)"transmission") &&
          trans_one(u, t, m, R, cnt)) return -1;
  }
  int used = cnt[TR_SIMPLE] + cnt[TR_DIFF] + cnt[TR_FOURBAR];
  if (!used) return fail(u, 0, "--transmission urdf: no <transmission> of a joint of the chain%s",
                         cnt[TR_N] ? " (all name joints outside it)" : "");
  char e2[DY_ERRSZ];
  if (dy_set_transmission(m, R, e2, sizeof e2)) return fail(u, 0, "<transmission> elements: %s", strstr(e2, "singular"));
  size_t len = strlen(m->notes);
  snprintf(m->notes + len, sizeof m->notes - len, "%s: %d transmissions read (%d simple, %d differential, %d four-bar "
           "linkage%s%.0d%s), %d coupled motor%s: the log's q and tau columns are the motors'%s\n", u->path, used,
           cnt[TR_SIMPLE], cnt[TR_DIFF], cnt[TR_FOURBAR], cnt[TR_N] ? "; skipped, outside the chain: " : "",
           cnt[TR_N], "", m->nmot, m->nmot == 1 ? "" : "s",
           cnt[TR_N + 1] ? "; their <offset> is not applied (give --q-offset)" : "");
  return 0;
}

/* ------------------------------------------------------------ the loader
 * dy_load_urdf in stages, in the order of the header: the elements, the
 * tree, the base and the tip, the chain between them, the locks and the
 * bodies, then the model: the joints and their axes, the DH frames, the
 * inertias and gravity. Each stage fails with "FILE:LINE: what". */

/* the chain being built */
typedef struct {
  int rootl, base, tip;
  int nc, n;                /* joints base -> tip (fixed and moving), moving ones */
  int* cj;                  /* the chain joints base -> tip (nc) */
  int* chain_joint_of;      /* URDF joint -> DH joint 1..n, 0: not a moving chain joint (njoint) */
  double Troot_base[12];    /* the base link in the root frame */
  int body_link[DY_MAXJ + 1];   /* link naming each body (0: the base) */
} urdfChain;

/* <robot> as the root element */
static int read_robot(urdfDoc* u, xmlNodePtr* root) {
  *root = xmlDocGetRootElement(u->doc);
  if (!*root) return fail(u, 1, "no root element");
  if (xmlStrcmp((*root)->name, (const xmlChar*)"robot"))
    return fail(u, xmlGetLineNo(*root), "root element is <%.40s>, a URDF has <robot>", (*root)->name);
  return 0;
}

/* Room for the links and joints (at least one link) and the chain's
 * per-joint arrays. */
static int alloc_elements(urdfDoc* u, xmlNodePtr root, urdfChain* ch) {
  int nl = 0, nj = 0;
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (!xmlStrcmp(c->name, (const xmlChar*)"link")) nl++;
    else if (!xmlStrcmp(c->name, (const xmlChar*)"joint")) nj++;
  }
  if (nl == 0) return fail(u, xmlGetLineNo(root), "<robot> has no <link>");
  u->links = calloc((size_t)nl, sizeof(urdfLink));
  u->joints = calloc((size_t)(nj ? nj : 1), sizeof(urdfJoint));
  u->child_start = calloc((size_t)nl + 1, sizeof(int));
  u->child_list = calloc((size_t)(nj ? nj : 1), sizeof(int));
  ch->chain_joint_of = calloc((size_t)(nj ? nj : 1), sizeof(int));
  ch->cj = calloc((size_t)(nj ? nj : 1), sizeof(int));
  if (!u->links || !u->joints || !u->child_start || !u->child_list || !ch->chain_joint_of || !ch->cj)
    return fail(u, 0, "out of memory");
  return 0;
}

/* the links (names unique), then the joints (names unique, referring to
 * links by name; a link has at most one parent joint) */
static int read_elements(urdfDoc* u, xmlNodePtr root) {
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || xmlStrcmp(c->name, (const xmlChar*)"link")) continue;
    urdfLink* L = u->links + u->nlink;
    int rl = read_link(u, c, L);
    if (L->name) u->nlink++;
    if (rl) return -1;
    for (int i = 0; i < u->nlink - 1; i++)
      if (!strcmp(u->links[i].name, L->name))
        return fail(u, L->line, "link name '%s' is used twice (also on line %ld)", L->name, u->links[i].line);
  }
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || xmlStrcmp(c->name, (const xmlChar*)"joint")) continue;
    urdfJoint* J = u->joints + u->njoint;
    int rj = read_joint(u, c, J);
    if (J->name) u->njoint++;
    if (rj) return -1;
    for (int i = 0; i < u->njoint - 1; i++)
      if (!strcmp(u->joints[i].name, J->name))
        return fail(u, J->line, "joint name '%s' is used twice (also on line %ld)", J->name, u->joints[i].line);
    urdfLink* C = u->links + J->child;
    if (C->parent_joint >= 0)
      return fail(u, J->line, "link '%s' has two parents: joint '%s' and joint '%s' (line %ld)", C->name,
                  J->name, u->joints[C->parent_joint].name, u->joints[C->parent_joint].line);
    C->parent_joint = u->njoint - 1;
  }
  return 0;
}

/* child lists (CSR: child_start, child_list) */
static int child_lists(urdfDoc* u) {
  u->order = calloc((size_t)u->nlink, sizeof(int));
  u->mark = calloc((size_t)u->nlink, sizeof(int));
  if (!u->order || !u->mark) return fail(u, 0, "out of memory");
  for (int j = 0; j < u->njoint; j++) u->child_start[u->joints[j].parent + 1]++;
  for (int i = 0; i < u->nlink; i++) u->child_start[i+1] += u->child_start[i];
  int* pos = u->order;   /* fill counters, zero */
  for (int j = 0; j < u->njoint; j++) {
    int pl = u->joints[j].parent;
    u->child_list[u->child_start[pl] + pos[pl]++] = j;
  }
  memset(pos, 0, (size_t)u->nlink * sizeof(int));
  return 0;
}

/* One root; breadth-first order from it; links it misses sit on a cycle
 * (every link has at most one parent, so the graph is a forest of trees
 * and of cycles with trees hanging from them); then moving_below, leaves
 * first. */
static int tree_order(urdfDoc* u, urdfChain* ch) {
  int rootl = -1;
  for (int i = 0; i < u->nlink; i++)
    if (u->links[i].parent_joint < 0) {
      if (rootl >= 0)
        return fail(u, u->links[i].line, "two root links, '%s' and '%s': the links must form one tree",
                    u->links[rootl].name, u->links[i].name);
      rootl = i;
    }
  int nord = 0;
  if (rootl >= 0) {
    u->order[nord++] = rootl;
    for (int i = 0; i < nord; i++) {
      int l = u->order[i];
      for (int c = u->child_start[l]; c < u->child_start[l+1]; c++)
        u->order[nord++] = u->joints[u->child_list[c]].child;
    }
  }
  if (nord < u->nlink) {
    /* a link not reached: walking up nlink steps from it lands on the cycle */
    memset(u->mark, 0, (size_t)u->nlink * sizeof(int));
    for (int i = 0; i < nord; i++) u->mark[u->order[i]] = 1;
    int l = 0;
    while (u->mark[l]) l++;
    for (int s = 0; s < u->nlink; s++) l = u->joints[u->links[l].parent_joint].parent;
    const urdfJoint* J = u->joints + u->links[l].parent_joint;
    return fail(u, J->line, "the joints form a cycle (through joint '%s', link '%s')", J->name, u->links[l].name);
  }
  for (int i = u->nlink - 1; i >= 0; i--) {
    urdfLink* L = u->links + u->order[i];
    for (int c = u->child_start[u->order[i]]; c < u->child_start[u->order[i]+1] && !L->moving_below; c++)
      L->moving_below = leads_to_motion(u, u->joints + u->child_list[c]);
  }
  ch->rootl = rootl;
  return 0;
}

/* The base link (--base or the root) and Troot_base, the product of the
 * fixed joints from the root down to it (a moving one is an error). */
static int find_base(urdfDoc* u, const dyLoadOpt* opt, urdfChain* ch) {
  int base = ch->rootl;
  if (opt && opt->base) {
    base = find_link(u, opt->base);
    if (base < 0) return fail(u, 0, "--base link '%s' is not defined", opt->base);
  }
  pose_eye(ch->Troot_base);
  for (int l = base; u->links[l].parent_joint >= 0;) {
    const urdfJoint* J = u->joints + u->links[l].parent_joint;
    if (is_moving(J))
      return fail(u, J->line, "--base '%s': joint '%s' between the root '%s' and the base moves; the base "
                  "must be fixed to the root", u->links[base].name, J->name, u->links[ch->rootl].name);
    double Tj[12];
    pose_from_xyz_rpy(Tj, J->xyz, J->rpy);
    pose_mul(ch->Troot_base, Tj, ch->Troot_base);
    l = J->parent;
  }
  ch->base = base;
  return 0;
}

/* The tip link: --tip (below the base), or the end of the one branch below
 * the base that holds moving joints, then down an unbranched chain of
 * fixed children (tool0, ee_link, ...); two moving branches are an error
 * naming the candidate tips. */
static int find_tip(urdfDoc* u, const dyLoadOpt* opt, urdfChain* ch) {
  int base = ch->base, l;
  if (opt && opt->tip) {
    int tip = find_link(u, opt->tip);
    if (tip < 0) return fail(u, 0, "--tip link '%s' is not defined", opt->tip);
    for (l = tip; l != base && u->links[l].parent_joint >= 0;) l = u->joints[u->links[l].parent_joint].parent;
    if (l != base)
      return fail(u, u->links[tip].line, "--tip link '%s' does not hang below the base link '%s'",
                  u->links[tip].name, u->links[base].name);
    ch->tip = tip;
    return 0;
  }
  for (l = base;;) {
    int next = -1, nb = 0;
    for (int c = u->child_start[l]; c < u->child_start[l+1]; c++) {
      const urdfJoint* J = u->joints + u->child_list[c];
      if (leads_to_motion(u, J)) { nb++; next = J->child; }
    }
    if (nb == 0) break;
    if (nb > 1) {
      char cand[300] = "";
      moving_ends(u, l, u->mark, cand, sizeof cand);
      return fail(u, u->links[l].line, "the chain branches at link '%s' into %d moving branches; choose one "
                  "with --tip (candidate tips: %s)", u->links[l].name, nb, cand);
    }
    l = next;
  }
  while (u->child_start[l+1] - u->child_start[l] == 1) l = u->joints[u->child_list[u->child_start[l]]].child;
  ch->tip = l;
  return 0;
}

/* the chain joints base -> tip (cj, nc) and its moving ones numbered 1..n
 * (chain_joint_of); 1 <= n <= DY_MAXJ */
static int chain_joints(urdfDoc* u, urdfChain* ch) {
  int base = ch->base, tip = ch->tip, nc = 0, n = 0;
  for (int l = tip; l != base; l = u->joints[u->links[l].parent_joint].parent) nc++;
  int i = nc;
  for (int l = tip; l != base; l = u->joints[u->links[l].parent_joint].parent) ch->cj[--i] = u->links[l].parent_joint;
  for (i = 0; i < nc; i++)
    if (is_moving(u->joints + ch->cj[i])) ch->chain_joint_of[ch->cj[i]] = ++n;
  if (n == 0)
    return fail(u, u->links[tip].line, "no moving joint between the base '%s' and the tip '%s'",
                u->links[base].name, u->links[tip].name);
  if (n > DY_MAXJ)
    return fail(u, u->links[tip].line, "%d moving joints between '%s' and '%s', at most %d are supported", n,
                u->links[base].name, u->links[tip].name, DY_MAXJ);
  ch->nc = nc; ch->n = n;
  return 0;
}

/* Moving chain joint k: its type, name, limits and <dynamics> (IA FV FC
 * FO; negative armature, damping or friction kept with a note); its axis
 * at q = 0 in the base-link frame, point axp and unit direction axu (the
 * child frame is the joint frame at q = 0); body k + 1 is named by its
 * child link. */
static void chain_joint(const urdfDoc* u, dyModel* m, const urdfJoint* J, int k, double* axp, double* axu) {
  int n = m->n;
  const double* Tc = u->links[J->child].T;
  memcpy(axp + 3*k, Tc + 9, 3 * sizeof(double));
  dyu_mulMatVec3(axu + 3*k, Tc, J->axis);
  double na = norm3(axu + 3*k);
  for (int a = 0; a < 3; a++) axu[3*k+a] /= na;
  m->jnt_type[k] = J->type == J_PRISMATIC ? DY_PRISMATIC : DY_REVOLUTE;
  snprintf(m->jnt_name[k], 64, "%s", J->name);
  m->jnt_qmin[k] = J->lower; m->jnt_qmax[k] = J->upper;
  m->jnt_qdmax[k] = J->velocity; m->jnt_taumax[k] = J->effort;
  if (!J->has_dyn) return;
  memcpy(m->par + DY_NPAR_LINK*n + DY_NPAR_JNT*k, J->dyn, sizeof J->dyn);   /* the order of dyn[] */
  m->has_friction = 1;
  /* published identified URDFs carry negative friction: kept, noted */
  static const char* const dyn_attr[3] = {"armature", "damping", "friction"};
  for (int a = 0; a < 3; a++)
    if (J->dyn[a] < 0) {
      size_t len = strlen(m->notes);
      dy_errpos(m->notes + len, sizeof m->notes - len, u->path, J->line, 0, "joint '%s': <dynamics %s=\"%g\"> is negative: "
               "not physical, kept as given\n", J->name, dyn_attr[a], J->dyn[a]);
    }
}

/* The DH frames F[0..n] from the axes (prismatic lines placed first), the
 * parameters alpha, a, theta, d read off F_{j-1}^-1 F_j (round-off dust
 * below 1e-15 printed as 0: moves FK by < 1e-15), base_T = F_0 and
 * tip_T = F_n^-1 (tip link pose). */
static void dh_model(const urdfDoc* u, dyModel* m, double* F, double* axp, double* axu, int tip) {
  int n = m->n;
  place_prismatic(axp, axu, m->jnt_type, n);
  dh_frames(F, axp, axu, n);
  for (int j = 1; j <= n; j++) {
    double T[12];
    pose_invmul(T, F + 12*(j-1), F + 12*j);
    dh_params(T, m->dh_alpha + j-1, m->dh_a + j-1, m->dh_theta + j-1, m->dh_d + j-1);
    double* v[4] = {m->dh_alpha + j-1, m->dh_a + j-1, m->dh_theta + j-1, m->dh_d + j-1};
    for (int k = 0; k < 4; k++) if (fabs(*v[k]) < 1e-15) *v[k] = 0;
  }
  memcpy(m->base_T, F, 12 * sizeof(double));
  pose_invmul(m->tip_T, F + 12*n, u->links[tip].T);
  dy_set_const(m);
}

/* Inertias: each link of body j >= 1, its inertial frame re-expressed in
 * DH frame j (X = F_j^-1 T_link T_inertial), summed as standard parameters
 * about O_j (dy_linkpar_from_com). */
static void sum_inertias(const urdfDoc* u, dyModel* m, const double* F) {
  for (int i = 0; i < u->nlink; i++) {
    const urdfLink* L = u->links + i;
    if (L->body < 1 || !L->has_inertial) continue;
    double X[12], Tin[12], Xc[12], I6[6], p10[10];
    pose_invmul(X, F + 12*L->body, L->T);
    pose_from_xyz_rpy(Tin, L->com, L->com_rpy);
    pose_mul(Xc, X, Tin);
    dyu_rotSym6(I6, Xc, L->I6);
    dy_linkpar_from_com(p10, L->mass, Xc + 9, I6);
    double* dst = m->par + DY_NPAR_LINK * (L->body - 1);
    for (int k = 0; k < DY_NPAR_LINK; k++) dst[k] += p10[k];
  }
}

/* ------------------------------------------------------------ ellipsoids */

/* the geometry of one DH body: the axis-aligned box in frame j of its
 * collision primitives and of its visual ones (lo, hi [m]; cnt primitives),
 * and whether it has <geometry> elements that are no primitive */
typedef struct {
  double lo[2][3], hi[2][3];
  int cnt[2];           /* [0] collision, [1] visual */
  int mesh, other;      /* <mesh>; any other shape (capsule, ...) */
} bodyGeom;

/* A number attribute of a primitive (a size: >= 0 [m]), required. */
static int prim_size(urdfDoc* u, xmlNodePtr shape, const char* attr, double* out, int cnt, const char* link) {
  int found;
  if (attr_nums(u, shape, attr, out, cnt, &found)) return -1;
  if (!found) return fail(u, xmlGetLineNo(shape), "link '%s': <%s> without %s", link, shape->name, attr);
  for (int k = 0; k < cnt; k++)
    if (out[k] < 0) return fail(u, xmlGetLineNo(shape), "link '%s': <%s %s>: negative size %g", link,
                                shape->name, attr, out[k]);
  return 0;
}

/* The <collision> (kind 0) and <visual> (kind 1) elements of link L, whose
 * pose in DH frame j is X, into g: each primitive placed at P = X O (O its
 * element's <origin>) and its exact axis-aligned extent in frame j added,
 * half-extent h_k along axis e_k around the centre P.p:
 *   box (size s):               h_k = sum_i |P.R_ki| s_i / 2 (the 8 corners)
 *   sphere (radius r):          h_k = r
 *   cylinder (radius r, length l, axis u = P.R e_z):
 *                               h_k = |u_k| l / 2 + r sqrt(1 - u_k^2)
 * <mesh> and other shapes only counted (mesh, other). */
static int link_geometry(urdfDoc* u, const urdfLink* L, const double X[12], bodyGeom* g) {
  for (xmlNodePtr el = L->node->children; el; el = el->next) {
    if (el->type != XML_ELEMENT_NODE) continue;
    int kind = !xmlStrcmp(el->name, (const xmlChar*)"collision") ? 0
             : !xmlStrcmp(el->name, (const xmlChar*)"visual") ? 1 : -1;
    xmlNodePtr geo = kind < 0 ? NULL : child_elem(el, "geometry"), shape = NULL;
    if (!geo) continue;
    for (shape = geo->children; shape && shape->type != XML_ELEMENT_NODE; shape = shape->next) {}
    if (!shape) continue;
    double xyz[3], rpy[3], O[12], P[12], h[3], v[3];
    if (read_origin(u, el, xyz, rpy)) return -1;
    pose_from_xyz_rpy(O, xyz, rpy);
    pose_mul(P, X, O);
    if (!xmlStrcmp(shape->name, (const xmlChar*)"box")) {
      if (prim_size(u, shape, "size", v, 3, L->name)) return -1;
      for (int k = 0; k < 3; k++)
        h[k] = 0.5 * (fabs(P[3*k]) * v[0] + fabs(P[3*k+1]) * v[1] + fabs(P[3*k+2]) * v[2]);
    } else if (!xmlStrcmp(shape->name, (const xmlChar*)"sphere")) {
      if (prim_size(u, shape, "radius", v, 1, L->name)) return -1;
      h[0] = h[1] = h[2] = v[0];
    } else if (!xmlStrcmp(shape->name, (const xmlChar*)"cylinder")) {
      if (prim_size(u, shape, "radius", v, 1, L->name) || prim_size(u, shape, "length", v + 1, 1, L->name))
        return -1;
      for (int k = 0; k < 3; k++) {
        double uk = P[3*k+2];
        h[k] = fabs(uk) * 0.5 * v[1] + v[0] * sqrt(fmax(0, 1 - uk*uk));
      }
    } else {
      if (!xmlStrcmp(shape->name, (const xmlChar*)"mesh")) g->mesh = 1; else g->other = 1;
      continue;
    }
    for (int k = 0; k < 3; k++) {
      double lo = P[9+k] - h[k], hi = P[9+k] + h[k];
      if (!g->cnt[kind] || lo < g->lo[kind][k]) g->lo[kind][k] = lo;
      if (!g->cnt[kind] || hi > g->hi[kind][k]) g->hi[kind][k] = hi;
    }
    g->cnt[kind]++;
  }
  return 0;
}

/* Bounding ellipsoids (m->link_ell): body j's box in frame j is that of
 * the collision primitives of all its links (the links merged into it, as
 * for the inertias: fixed children, locked subtrees), or, when it has none,
 * of their visual primitives; the ellipsoid circumscribing the box has its
 * centre and semi-axes sqrt(3) times its half-extents (the corners lie on
 * it), each at least 1 mm; one beyond DY_MAXLEN is an error (the table
 * writer could not hold it). Geometry of body 0 (ground) is dropped. No
 * note: the models' notes are warnings, and these are no news (the
 * consistent estimate prints each link's ellipsoid and where it came from). */
static int link_ellipsoids(urdfDoc* u, dyModel* m, const double* F, const int* body_link) {
  int n = m->n;
  bodyGeom g[DY_MAXJ];
  memset(g, 0, sizeof g);
  for (int i = 0; i < u->nlink; i++) {
    const urdfLink* L = u->links + i;
    if (L->body < 1) continue;
    double X[12];
    pose_invmul(X, F + 12*L->body, L->T);
    if (link_geometry(u, L, X, g + L->body - 1)) return -1;
  }
  for (int j = 0; j < n; j++) {
    const bodyGeom* b = g + j;
    int kind = b->cnt[0] ? 0 : b->cnt[1] ? 1 : -1;   /* collision, else visual, else none */
    if (kind < 0) continue;
    double* e = m->link_ell + 6*j;
    for (int k = 0; k < 3; k++) {
      e[k] = 0.5 * (b->lo[kind][k] + b->hi[kind][k]);
      e[3+k] = fmax(sqrt(3.0) * 0.5 * (b->hi[kind][k] - b->lo[kind][k]), 1e-3);
    }
    int bad = dy_ell_bad(e);
    if (bad >= 0) {
      const urdfLink* L = u->links + body_link[j + 1];
      return fail(u, L->line, "link '%s' (link %d): the bounding ellipsoid of its %s primitives has %s %g m, "
                  "beyond %g m (a unit error?)", L->name, j + 1, kind ? "visual" : "collision",
                  bad < 3 ? "a centre coordinate" : "a semi-axis", e[bad], DY_MAXLEN);
    }
  }
  return 0;
}

/* The model of the chain: joints and axes, lock notes, DH geometry,
 * inertias, bounding ellipsoids, gravity (0,0,-9.81) in the root frame -> base-link frame ->
 * frame 0, or opt's), the forward-kinematics check. NULL with u->err. */
static dyModel* chain_model(urdfDoc* u, const dyLoadOpt* opt, urdfChain* ch) {
  int n = ch->n;
  double* work = calloc((size_t)(6*n + 12*(n+1)), sizeof(double));
  double* sub = NULL;
  dyModel* m = dy_make_model(n);
  if (!work || !m) { fail(u, 0, "out of memory"); goto fail; }
  double *axp = work, *axu = work + 3*n, *F = work + 6*n;
  for (int i = 0, k = 0; i < ch->nc; i++) {
    const urdfJoint* J = u->joints + ch->cj[i];
    if (!is_moving(J)) continue;
    chain_joint(u, m, J, k, axp, axu);
    ch->body_link[++k] = J->child;
  }
  ch->body_link[0] = ch->base;
  sub = calloc((size_t)u->nlink, sizeof(double));
  if (!sub) { fail(u, 0, "out of memory"); goto fail; }
  if (lock_notes(u, m, ch->chain_joint_of, ch->body_link, sub)) goto fail;
  snap_notes(u, m);
  dh_model(u, m, F, axp, axu, ch->tip);
  char what[160];
  if (dy_length_bad(m, DY_MAXLEN_URDF, what, sizeof what)) {
    fail(u, 0, "in modified DH, %s (a unit error?)", what);
    goto fail;
  }
  sum_inertias(u, m, F);
  if (link_ellipsoids(u, m, F, ch->body_link)) goto fail;
  double g_root[3] = {0, 0, -9.81}, g_base[3];
  dyu_mulMatTVec3(g_base, ch->Troot_base, g_root);
  dyu_mulMatTVec3(m->gravity, F, g_base);
  if (opt && opt->has_gravity) memcpy(m->gravity, opt->gravity, sizeof m->gravity);
  snprintf(m->source, sizeof m->source, "%s", u->path);
  m->load_fk_err = fk_err(u, m, ch->cj, ch->nc);
  free(work); free(sub);
  return m;
fail:
  free(work); free(sub);
  dy_free_model(m);
  return NULL;
}

int dy_load_urdf(const char* path, const dyLoadOpt* opt, dyModel** out,
                 char* err, int errsz) {
  *out = NULL;
  urdfDoc U, *u = &U;
  memset(u, 0, sizeof U);
  u->path = path; u->err = err; u->errsz = errsz;
  urdfChain ch;
  memset(&ch, 0, sizeof ch);
  xmlNodePtr root;
  int r = -1;
  if (parse_file(u) || read_robot(u, &root) || alloc_elements(u, root, &ch) || read_elements(u, root))
    goto done;
  snap_angles(u, opt && opt->has_snap ? opt->snap : DY_SNAP_DEFAULT);
  if (child_lists(u) || tree_order(u, &ch) || find_base(u, opt, &ch) || find_tip(u, opt, &ch) ||
      chain_joints(u, &ch) || set_locks(u, opt, ch.chain_joint_of, ch.base, ch.tip))
    goto done;
  mark_bodies(u, ch.base, ch.chain_joint_of);
  *out = chain_model(u, opt, &ch);
  if (*out && opt && opt->urdf_trans && urdf_transmissions(u, root, *out)) { dy_free_model(*out); *out = NULL; }
  if (*out) r = 0;
done:
  free(ch.chain_joint_of); free(ch.cj);
  free_urdf(u);
  return r;
}

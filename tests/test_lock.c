/* SPDX-License-Identifier: MIT */
/* dynid tests: moving joints off the chain (locked) and URDF joint dynamics,
 * against an independent KDL tree of the same file (tests/kdl_urdf.h).
 *
 * The robot, written here with random geometry and inertias: a mobile base
 * with two wheels, a torso (torso_fixed_link) carrying a laser on a tilt
 * joint, a prismatic lift (torso_lift_link) carrying a pan-tilt head (two
 * revolute joints and a camera fixed to the second) and an arm of four
 * revolute joints whose last link carries a gripper with two prismatic
 * fingers. Loaded with --base torso_fixed_link --tip arm_4_link the chain is
 * lift + arm (5 joints); head and fingers are locked onto links 1 and 5, the
 * laser onto the base (ground), the wheels are not below the base. Half of
 * the robots turn the torso instead of lifting it (see locked()).
 *
 * 1. Locked at 0 and at given --lock values: joint torques of dy_rnea equal
 *    KDL's TreeIdSolver_RNE on the whole tree with the locked joints held at
 *    those values (and the wheels at 0), at random states, to 1e-9 of the
 *    torque scale. Both describe one rigid-body tree exactly (DH frames and
 *    merged bodies on one side, URDF frames and separate segments on the
 *    other), so only round-off separates them (~1e-14 relative); a locked
 *    body missing or misplaced by one degree changes the torques by > 1e-4
 *    of the scale. Link masses equal the sums over the merged links; the
 *    notes name every locked joint with its value and subtree mass.
 * 2. The one-line errors of --lock in the library and in the program (exit
 *    1), its usage errors (exit 2), the default-tip error with two moving
 *    branches, the warnings printed by the program and --quiet.
 * 3. <dynamics damping friction armature offset> on chain joints: the joint
 *    parameters, has_friction, dy_rnea against KDL plus the URDF terms (same
 *    tolerance), on the generated robot and on the shipped KUKA LWR4 file;
 *    negative and non-numeric values are errors at their line. */
#include "testmodels.h"
#include "kdl_urdf.h"
#include "core/dynamics.h"
#include "core/io.h"
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCHAIN 5
static const char* const chain_names[NCHAIN] = {"torso_lift_joint", "arm_1_joint", "arm_2_joint",
                                                "arm_3_joint", "arm_4_joint"};

/* what the generator wrote: link masses [kg] and the line of each joint */
typedef struct {
  double mass[32];
  char link[32][32];
  int nlink;
  char joint[32][32];
  int jline[32], njoint;
  double dyn[NCHAIN][4];   /* IA FV FC FO written on the chain joints */
} robot_t;

static double link_mass(const robot_t* r, const char* name) {
  for (int i = 0; i < r->nlink; i++) if (!strcmp(r->link[i], name)) return r->mass[i];
  return NAN;
}
static int joint_line(const robot_t* r, const char* name) {
  for (int i = 0; i < r->njoint; i++) if (!strcmp(r->joint[i], name)) return r->jline[i];
  return -1;
}

/* a link with a random inertial (mass in 0.01 kg steps, so that sums print
 * exactly with %g) on one line */
static void w_link(FILE* f, robot_t* r, int* line, const char* name) {
  double p10[10], mass, c[3], Ic[6];
  th_random_link(p10);
  dy_linkpar_to_com(p10, &mass, c, Ic);
  mass = round(mass * 100) / 100;
  fprintf(f, "  <link name=\"%s\"><inertial><origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>"
          "<mass value=\"%.2f\"/><inertia ixx=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" iyy=\"%.17g\" iyz=\"%.17g\" "
          "izz=\"%.17g\"/></inertial></link>\n", name, c[0], c[1], c[2], th_uniform(-3, 3), th_uniform(-1.5, 1.5),
          th_uniform(-3, 3), mass, Ic[0], Ic[1], Ic[2], Ic[3], Ic[4], Ic[5]);
  snprintf(r->link[r->nlink], 32, "%s", name);
  r->mass[r->nlink++] = mass;
  (*line)++;
}

/* a joint on one line: random origin, random unit axis (or the one given),
 * limits lo..hi, and extra text (a <dynamics> element) */
static void w_joint(FILE* f, robot_t* r, int* line, const char* name, const char* type, const char* parent,
                    const char* child, double lo, double hi, const char* extra) {
  double ax[3] = {th_uniform(-1, 1), th_uniform(-1, 1), th_uniform(-1, 1)};
  fprintf(f, "  <joint name=\"%s\" type=\"%s\"><origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>"
          "<parent link=\"%s\"/><child link=\"%s\"/>", name, type, th_uniform(-0.3, 0.3), th_uniform(-0.3, 0.3),
          th_uniform(-0.3, 0.3), th_uniform(-3, 3), th_uniform(-1.5, 1.5), th_uniform(-3, 3), parent, child);
  if (strcmp(type, "fixed")) {
    fprintf(f, "<axis xyz=\"%.17g %.17g %.17g\"/>", ax[0], ax[1], ax[2]);
    if (strcmp(type, "continuous"))
      fprintf(f, "<limit lower=\"%g\" upper=\"%g\" velocity=\"2\" effort=\"100\"/>", lo, hi);
  }
  fprintf(f, "%s</joint>\n", extra ? extra : "");
  snprintf(r->joint[r->njoint], 32, "%s", name);
  r->jline[r->njoint++] = *line;
  (*line)++;
}

/* 1: the torso joint is revolute instead of prismatic (see locked()) */
static int torso_turns;

/* a link off the chain and the joint whose child it is */
typedef struct { const char *joint, *type, *parent, *child; double lo, hi; } part_t;
static const part_t base_parts[] = {
  {"base_joint", "fixed", "base_footprint", "base_link", 0, 0},
  {"wheel_left_joint", "continuous", "base_link", "wheel_left_link", 0, 0},
  {"wheel_right_joint", "continuous", "base_link", "wheel_right_link", 0, 0},
  {"torso_fixed_joint", "fixed", "base_link", "torso_fixed_link", 0, 0},
  {"laser_tilt_joint", "revolute", "torso_fixed_link", "laser_link", -1, 1}};
static const part_t head_parts[] = {
  {"head_1_joint", "revolute", "torso_lift_link", "head_1_link", -2.5, 2.5},
  {"head_2_joint", "revolute", "head_1_link", "head_2_link", -1, 1},
  {"camera_joint", "fixed", "head_2_link", "camera_link", 0, 0}};
static const part_t gripper_parts[] = {
  {"gripper_joint", "fixed", "arm_4_link", "gripper_link", 0, 0},
  {"finger_left_joint", "prismatic", "gripper_link", "finger_left_link", 0, 0.05},
  {"finger_right_joint", "prismatic", "gripper_link", "finger_right_link", 0, 0.05}};

/* parts p[0..np-1]; the first joint gets the text extra0 */
static void w_parts(FILE* f, robot_t* r, int* line, const part_t* p, int np, const char* extra0) {
  for (int i = 0; i < np; i++) {
    w_link(f, r, line, p[i].child);
    w_joint(f, r, line, p[i].joint, p[i].type, p[i].parent, p[i].child, p[i].lo, p[i].hi, i ? NULL : extra0);
  }
}

/* the robot of the header; dyn: <dynamics> on the chain joints (some
 * attributes left out) and on the head's first joint (locked: not used);
 * bad: a replacement <dynamics> text for arm_2_joint (error tests) */
static void write_robot(const char* path, robot_t* r, int dyn, const char* bad) {
  memset(r, 0, sizeof *r);
  FILE* f = fopen(path, "w");
  if (!f) { CHECK(0, "cannot write %s", path); return; }
  fprintf(f, "<?xml version=\"1.0\"?>\n<robot name=\"mobile\">\n  <link name=\"base_footprint\"/>\n");
  int line = 4;
  w_parts(f, r, &line, base_parts, 5, NULL);
  const char* parent = "torso_fixed_link";
  const char* child_of[NCHAIN] = {"torso_lift_link", "arm_1_link", "arm_2_link", "arm_3_link", "arm_4_link"};
  for (int j = 0; j < NCHAIN; j++) {
    char extra[300] = "";
    if (dyn) {
      double* d = r->dyn[j];
      d[DY_IA] = j == 1 ? 0 : th_uniform(0, 0.5);
      d[DY_FV] = th_uniform(0, 2);
      d[DY_FC] = j == 3 ? 0 : th_uniform(0, 2);
      d[DY_FO] = th_uniform(-1, 1);
      if (j == 1)        /* no armature attribute */
        snprintf(extra, sizeof extra, "<dynamics damping=\"%.17g\" friction=\"%.17g\" offset=\"%.17g\"/>",
                 d[DY_FV], d[DY_FC], d[DY_FO]);
      else if (j == 3)   /* no friction attribute */
        snprintf(extra, sizeof extra, "<dynamics damping=\"%.17g\" armature=\"%.17g\" offset=\"%.17g\"/>",
                 d[DY_FV], d[DY_IA], d[DY_FO]);
      else
        snprintf(extra, sizeof extra, "<dynamics damping=\"%.17g\" friction=\"%.17g\" armature=\"%.17g\" "
                 "offset=\"%.17g\"/>", d[DY_FV], d[DY_FC], d[DY_IA], d[DY_FO]);
    }
    if (bad && j == 2) snprintf(extra, sizeof extra, "%s", bad);
    w_link(f, r, &line, child_of[j]);
    int lift = j == 0 && !torso_turns;
    w_joint(f, r, &line, chain_names[j], lift ? "prismatic" : j == 2 ? "continuous" : "revolute", parent,
            child_of[j], lift ? 0 : -2.5, lift ? 0.4 : 2.5, extra);
    parent = child_of[j];
    if (j == 0)
      w_parts(f, r, &line, head_parts, 3,
              dyn ? "<dynamics damping=\"3\" friction=\"2\" armature=\"1\" offset=\"5\"/>" : NULL);
  }
  w_parts(f, r, &line, gripper_parts, 3, NULL);
  fprintf(f, "</robot>\n");
  fclose(f);
}

static dyModel* load(const char* path, int nlock, const char* const* names, const double* vals, char* err) {
  dyLoadOpt o;
  memset(&o, 0, sizeof o);
  o.base = "torso_fixed_link";
  o.tip = "arm_4_link";
  o.nlock = nlock; o.lock_joint = names; o.lock_q = vals;
  dyModel* m = NULL;
  if (dy_load_urdf(path, &o, &m, err, DY_ERRSZ)) return NULL;
  return m;
}

/* largest |tau_dynid - tau_kdl| over random states, and the torque scale */
static void compare_kdl(const dyModel* m, kdl_urdf* k, int nstate, double* worst, double* scale) {
  dyData* d = dy_make_data(m);
  const char* names[DY_MAXJ];
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tm[DY_MAXJ], tk[DY_MAXJ];
  for (int j = 0; j < m->n; j++) names[j] = m->jnt_name[j];
  *worst = 0; *scale = 0;
  for (int s = 0; s < nstate; s++) {
    th_random_state(m->n, q, qd, qdd);
    dy_rnea(m, d, m->par, q, qd, qdd, tm);
    int r = kdl_urdf_id(k, names, m->n, q, qd, qdd, tk);
    if (r) { *worst = INFINITY; break; }
    for (int j = 0; j < m->n; j++) {
      *worst = fmax(*worst, fabs(tm[j] - tk[j]));
      *scale = fmax(*scale, fabs(tk[j]));
    }
  }
  dy_free_data(d);
}

/* ------------------------------------------------------------ 1. locks */

/* the joints locked in the variants, in this order */
static const char* const lock_names[] = {"head_1_joint", "head_2_joint", "finger_left_joint", "laser_tilt_joint",
                                         "finger_right_joint"};

/* link masses: link 1 = lift + head + camera, arms as written, link 5 =
 * arm_4 + gripper + fingers; no <dynamics>: no friction */
static void check_lock_masses(const dyModel* m, const robot_t* R) {
  double m1 = link_mass(R, "torso_lift_link") + link_mass(R, "head_1_link") + link_mass(R, "head_2_link") +
              link_mass(R, "camera_link");
  double m5 = link_mass(R, "arm_4_link") + link_mass(R, "gripper_link") + link_mass(R, "finger_left_link") +
              link_mass(R, "finger_right_link");
  CHECK_REL(m->par[DY_M], m1, 1e-14, "link 1 mass: lift + locked head + camera");
  for (int j = 2; j <= 4; j++) {
    char ln[32];
    snprintf(ln, sizeof ln, "arm_%d_link", j - 1);
    CHECK_REL(m->par[DY_NPAR_LINK*(j-1) + DY_M], link_mass(R, ln), 1e-14, "arm link mass");
  }
  CHECK_REL(m->par[DY_NPAR_LINK*4 + DY_M], m5, 1e-14, "link 5 mass: arm_4 + gripper + locked fingers");
  CHECK(!m->has_friction, "no <dynamics>: has_friction %d", m->has_friction);
}

/* notes: one line per locked joint (the first nlock at vals, the rest at
 * 0), parents first; dy_copy_model keeps them */
static void check_lock_notes(const dyModel* m, const robot_t* R, int nlock, const double* vals, int variant) {
  char want[1024];
  double v0 = nlock > 0 ? vals[0] : 0, v1 = nlock > 1 ? vals[1] : 0, v2 = nlock > 2 ? vals[2] : 0;
  double v3 = nlock > 3 ? vals[3] : 0, v4 = nlock > 4 ? vals[4] : 0;
  snprintf(want, sizeof want,
           "locked joint 'laser_tilt_joint' at %g rad: %g kg merged into the base (torso_fixed_link), which is "
           "ground: no effect on the dynamics\n"
           "locked joint 'head_1_joint' at %g rad: %g kg merged into link 1 (torso_lift_link)\n"
           "locked joint 'head_2_joint' at %g rad: %g kg merged into link 1 (torso_lift_link)\n"
           "locked joint 'finger_left_joint' at %g m: %g kg merged into link 5 (arm_4_link)\n"
           "locked joint 'finger_right_joint' at %g m: %g kg merged into link 5 (arm_4_link)\n",
           v3, link_mass(R, "laser_link"),
           v0, link_mass(R, "head_1_link") + link_mass(R, "head_2_link") + link_mass(R, "camera_link"),
           v1, link_mass(R, "head_2_link") + link_mass(R, "camera_link"),
           v2, link_mass(R, "finger_left_link"), v4, link_mass(R, "finger_right_link"));
  CHECK(!strcmp(m->notes, want), "lock variant %d: notes\n%s\nexpected\n%s", variant, m->notes, want);
  dyModel* c = dy_copy_model(m);
  CHECK(c && !strcmp(c->notes, m->notes), "dy_copy_model keeps the notes");
  dy_free_model(c);
}

/* the chain of m against KDL's tree k with the nlock locked joints held at
 * vals: joints, torques at random states */
static void check_lock_kdl(const dyModel* m, kdl_urdf* k, int nlock, const double* vals, int variant) {
  CHECK(kdl_urdf_njoint(k) == 12, "kdl tree: %d moving joints, expected 12", kdl_urdf_njoint(k));
  CHECK(m->n == NCHAIN && m->jnt_type[0] == (torso_turns ? DY_REVOLUTE : DY_PRISMATIC),
        "lock variant %d: %d joints", variant, m->n);
  CHECK(m->load_fk_err < 1e-12, "lock variant %d: load_fk_err %.3g", variant, m->load_fk_err);
  for (int j = 0; j < m->n && j < NCHAIN; j++)
    CHECK(!strcmp(m->jnt_name[j], chain_names[j]), "joint %d is '%s'", j + 1, m->jnt_name[j]);
  for (int i = 0; i < nlock; i++) CHECK(kdl_urdf_hold(k, lock_names[i], vals[i]) == 0, "hold %s", lock_names[i]);
  CHECK(kdl_urdf_hold(k, "camera_joint", 0) == -1 && kdl_urdf_hold(k, "nope", 0) == -1,
        "kdl_urdf_hold: fixed and unknown joints refused");
  double worst, scale;
  compare_kdl(m, k, 20, &worst, &scale);
  CHECK(worst <= 1e-9 * fmax(1, scale), "lock variant %d: torques differ from KDL by %.3g (scale %.3g)",
        variant, worst, scale);
  if (variant == 3) printf("locked joints against KDL: largest torque difference %.2g N m (scale %.3g)\n",
                           worst, scale);
}

/* lock variant 0 (every lock at 0), 1 (two locks) or 2, 3 (five locks) at
 * random values within the limits; -1 if the robot does not load */
static int lock_variant(const char* path, int variant) {
  robot_t R;
  char err[DY_ERRSZ] = "";
  /* over the prismatic lift, body 1 only translates: where its locked head
   * sits changes no torque, so odd variants turn the torso joint into a
   * revolute one, where the head's locked pose matters */
  torso_turns = variant % 2;
  write_robot(path, &R, 0, NULL);
  double vals[5] = {th_uniform(-2.5, 2.5), th_uniform(-1, 1), th_uniform(0, 0.05), th_uniform(-1, 1),
                    th_uniform(0, 0.05)};
  int nlock = variant == 0 ? 0 : variant == 1 ? 2 : 5;
  dyModel* m = load(path, nlock, lock_names, vals, err);
  CHECK(m != NULL, "lock variant %d: %s", variant, err);
  kdl_urdf* k = kdl_urdf_load(path, err, sizeof err);
  CHECK(k != NULL, "kdl_urdf_load: %s", err);
  if (!m || !k) { dy_free_model(m); kdl_urdf_free(k); return -1; }
  check_lock_kdl(m, k, nlock, vals, variant);
  check_lock_masses(m, &R);
  check_lock_notes(m, &R, nlock, vals, variant);
  dy_free_model(m);
  kdl_urdf_free(k);
  return 0;
}

/* the four lock variants against KDL, then the default tip's error */
static void locked(void) {
  const char* path = "build/tests/lock_mobile.urdf";
  char err[DY_ERRSZ] = "";
  for (int variant = 0; variant < 4; variant++)
    if (lock_variant(path, variant)) return;
  torso_turns = 0;
  /* the default tip: two moving branches below the base stay an error */
  dyLoadOpt o;
  memset(&o, 0, sizeof o);
  o.base = "torso_fixed_link";
  dyModel* m = (dyModel*)1;
  int r = dy_load_urdf(path, &o, &m, err, sizeof err);
  CHECK(r == -1 && !m && strstr(err, "into 2 moving branches; choose one with --tip"), "no --tip: %s", err);
}

/* ------------------------------------------------------------ 2. errors */

static void lock_error(const char* path, int nlock, const char* const* names, const double* vals,
                       const char* expect) {
  char err[DY_ERRSZ] = "", want[600];
  dyModel* m = load(path, nlock, names, vals, err);
  snprintf(want, sizeof want, "%s%s", path, expect);
  CHECK(!m && !strcmp(err, want), "--lock %s: error '%s', expected '%s'", names[nlock - 1], err, want);
  dy_free_model(m);
}

static void errors(void) {
  const char* path = "build/tests/lock_err.urdf";
  robot_t R;
  write_robot(path, &R, 0, NULL);
  char e[600];
  const char* n1[1];
  double v0[2] = {0, 0};
  n1[0] = "arm_2_joint";
  snprintf(e, sizeof e, ":%d: --lock 'arm_2_joint' is on the chain between 'torso_fixed_link' and 'arm_4_link'; "
           "only joints off the chain can be locked", joint_line(&R, "arm_2_joint"));
  lock_error(path, 1, n1, v0, e);
  n1[0] = "gripper_joint";
  snprintf(e, sizeof e, ":%d: --lock 'gripper_joint' is a fixed joint; only moving joints off the chain can be "
           "locked", joint_line(&R, "gripper_joint"));
  lock_error(path, 1, n1, v0, e);
  n1[0] = "elbow";
  lock_error(path, 1, n1, v0, ": --lock 'elbow': no joint of that name");
  n1[0] = "wheel_left_joint";
  snprintf(e, sizeof e, ":%d: --lock 'wheel_left_joint': the joint does not hang below the base "
           "'torso_fixed_link', so it is not part of the model", joint_line(&R, "wheel_left_joint"));
  lock_error(path, 1, n1, v0, e);
  const char* n2[2] = {"head_2_joint", "head_2_joint"};
  lock_error(path, 2, n2, v0, ": --lock 'head_2_joint' is given twice");
  double big = 1.5, nan1 = NAN;
  snprintf(e, sizeof e, ":%d: --lock 'head_2_joint' at 1.5 rad is outside the joint's limits [-1, 1] rad",
           joint_line(&R, "head_2_joint"));
  lock_error(path, 1, n2, &big, e);
  lock_error(path, 1, n2, &nan1, ": --lock 'head_2_joint': position nan is not a finite number");

  /* <dynamics>: a negative damping (published identified URDFs have them)
   * is kept and noted with its line; a non-numeric value is an error */
  char err[DY_ERRSZ];
  write_robot(path, &R, 1, "<dynamics damping=\"-0.5\"/>");
  dyModel* m = load(path, 0, NULL, NULL, err);
  snprintf(e, sizeof e, "%s:%d: joint 'arm_2_joint': <dynamics damping=\"-0.5\"> is negative: not physical, kept "
           "as given\n", path, joint_line(&R, "arm_2_joint"));
  CHECK(m && m->par[DY_NPAR_LINK*NCHAIN + DY_NPAR_JNT*2 + DY_FV] == -0.5 && strstr(m->notes, e),
        "negative damping kept and noted: '%s', expected '%s'", m ? m->notes : err, e);
  dy_free_model(m);
  write_robot(path, &R, 1, "<dynamics armature=\"x\"/>");
  m = load(path, 0, NULL, NULL, err);
  snprintf(e, sizeof e, "%s:%d: <dynamics armature=\"x\">: 'x' is not a number", path, joint_line(&R, "arm_2_joint"));
  CHECK(!m && !strcmp(err, e), "non-numeric armature: '%s', expected '%s'", err, e);
  dy_free_model(m);
  write_robot(path, &R, 1, "<dynamics friction=\"-1e-3\"/>");
  m = load(path, 0, NULL, NULL, err);
  CHECK(m && strstr(m->notes, "<dynamics friction=\"-0.001\"> is negative"), "negative friction noted: '%s'",
        m ? m->notes : err);
  dy_free_model(m);
  write_robot(path, &R, 1, "<dynamics offset=\"-2.5\"/>");   /* an offset has a sign */
  m = load(path, 0, NULL, NULL, err);
  CHECK(m && m->par[DY_NPAR_LINK*NCHAIN + DY_NPAR_JNT*2 + DY_FO] == -2.5, "negative offset: %s", m ? "" : err);
  dy_free_model(m);
}

/* ------------------------------------------------------------ 3. dynamics */

static void dynamics(void) {
  const char* path = "build/tests/lock_dyn.urdf";
  robot_t R;
  char err[DY_ERRSZ] = "";
  write_robot(path, &R, 1, NULL);
  const char* names[1] = {"head_1_joint"};
  double v = 0.4;
  dyModel* m = load(path, 1, names, &v, err);
  kdl_urdf* k = kdl_urdf_load(path, err, sizeof err);
  CHECK(m && k, "dynamics robot: %s", err);
  if (!m || !k) { dy_free_model(m); kdl_urdf_free(k); return; }
  CHECK(m->has_friction == 1, "<dynamics> on chain joints: has_friction %d", m->has_friction);
  int same = 1;
  for (int j = 0; j < NCHAIN; j++)
    for (int p = 0; p < DY_NPAR_JNT; p++) same &= m->par[DY_NPAR_LINK*NCHAIN + DY_NPAR_JNT*j + p] == R.dyn[j][p];
  CHECK(same, "joint parameters IA FV FC FO equal the <dynamics> attributes (absent ones 0)");
  kdl_urdf_hold(k, "head_1_joint", v);
  double worst, scale;
  compare_kdl(m, k, 20, &worst, &scale);
  CHECK(worst <= 1e-9 * fmax(1, scale), "dynamics: torques differ from KDL + friction by %.3g (scale %.3g)", worst,
        scale);
  dy_free_model(m);
  kdl_urdf_free(k);

  /* the shipped KUKA LWR4: <dynamics damping friction> on its seven joints */
  const char* kuka = "datasets/urdf/kuka_lwr4.urdf";
  m = NULL;
  int r = dy_load_urdf(kuka, NULL, &m, err, sizeof err);
  k = kdl_urdf_load(kuka, err, sizeof err);
  CHECK(r == 0 && m && k, "kuka: %s", err);
  if (r || !m || !k) { dy_free_model(m); kdl_urdf_free(k); return; }
  const double* pj = m->par + DY_NPAR_LINK*m->n;
  CHECK(m->has_friction && pj[DY_FV] == 1.0 && pj[DY_FC] == 0.5 && pj[DY_IA] == 0 && pj[DY_FO] == 0 &&
        pj[DY_NPAR_JNT*6 + DY_FV] == 0.2 && pj[DY_NPAR_JNT*6 + DY_FC] == 0.05,
        "kuka: joint 1 FV %g FC %g, joint 7 FV %g FC %g", pj[DY_FV], pj[DY_FC], pj[DY_NPAR_JNT*6 + DY_FV],
        pj[DY_NPAR_JNT*6 + DY_FC]);
  CHECK(m->notes[0] == 0, "kuka: no notes, got '%s'", m->notes);
  compare_kdl(m, k, 20, &worst, &scale);
  CHECK(worst <= 1e-9 * fmax(1, scale), "kuka: torques differ from KDL + friction by %.3g (scale %.3g)", worst, scale);
  printf("KUKA LWR4 with <dynamics> against KDL: largest torque difference %.2g N m (scale %.3g)\n", worst, scale);
  dy_free_model(m);
  kdl_urdf_free(k);
}

/* ------------------------------------------------------------ 4. program */

static char tmp[256];

static int count_lines(const char* s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static const char* out_file(const char* which) {
  char p[300];
  snprintf(p, sizeof p, "%s/%s", tmp, which);
  return th_slurp(p);
}

/* the chain's 8 random states (q, qd, qdd) into the file states */
static void write_lock_states(const char* states, double q[8][NCHAIN], double qd[8][NCHAIN],
                              double qdd[8][NCHAIN]) {
  FILE* f = fopen(states, "w");
  fprintf(f, "q1,q2,q3,q4,q5,qd1,qd2,qd3,qd4,qd5,qdd1,qdd2,qdd3,qdd4,qdd5\n");
  for (int s = 0; s < 8; s++) {
    th_random_state(NCHAIN, q[s], qd[s], qdd[s]);
    for (int j = 0; j < 3*NCHAIN; j++)
      fprintf(f, "%.17g%c", j < NCHAIN ? q[s][j] : j < 2*NCHAIN ? qd[s][j-NCHAIN] : qdd[s][j-2*NCHAIN],
              j + 1 < 3*NCHAIN ? ',' : '\n');
  }
  fclose(f);
}

/* the torques `dynid id` printed (out, after the header) against KDL's tree
 * k at the states: rows read, largest difference and scale */
static int id_vs_kdl(kdl_urdf* k, const char* out, double q[8][NCHAIN], double qd[8][NCHAIN],
                     double qdd[8][NCHAIN], double* worst, double* scale) {
  const char* p = strchr(out, '\n');   /* after the header */
  int rows = 0;
  *worst = 0; *scale = 0;
  for (int s = 0; s < 8 && p; s++) {
    double tk[NCHAIN], t;
    kdl_urdf_id(k, chain_names, NCHAIN, q[s], qd[s], qdd[s], tk);
    p++;
    for (int j = 0; j < NCHAIN; j++) {
      char* e;
      t = strtod(p, &e);
      if (e == p) { *worst = INFINITY; break; }
      *worst = fmax(*worst, fabs(t - tk[j]));
      *scale = fmax(*scale, fabs(tk[j]));
      p = e + (*e == ',');
    }
    rows++;
    p = strchr(p, '\n');
  }
  return rows;
}

/* dynid id with two locks against KDL holding them; its 5 warnings */
static void check_id_lock(const char* path, const char* opts, const robot_t* R, kdl_urdf* k) {
  char cmd[2048], states[300];
  double q[8][NCHAIN], qd[8][NCHAIN], qdd[8][NCHAIN];
  snprintf(states, sizeof states, "%s/states.csv", tmp);
  write_lock_states(states, q, qd, qdd);
  snprintf(cmd, sizeof cmd, "./dynid id %s %s %s --lock head_1_joint=0.7 --lock=finger_left_joint=0.02",
           path, states, opts);
  int rc = th_run(tmp, cmd);
  CHECK(rc == 0, "dynid id --lock: exit %d: %s", rc, out_file("stderr"));
  kdl_urdf_hold(k, "head_1_joint", 0.7);
  kdl_urdf_hold(k, "finger_left_joint", 0.02);
  double worst, scale;
  int rows = id_vs_kdl(k, out_file("stdout"), q, qd, qdd, &worst, &scale);
  CHECK(rows == 8 && worst <= 1e-9 * fmax(1, scale), "dynid id --lock vs KDL: %d rows, difference %.3g (scale %.3g)",
        rows, worst, scale);
  const char* se = out_file("stderr");
  char want[400];
  snprintf(want, sizeof want, "dynid: warning: locked joint 'head_1_joint' at 0.7 rad: %g kg merged into link 1 "
           "(torso_lift_link)\n", link_mass(R, "head_1_link") + link_mass(R, "head_2_link") +
           link_mass(R, "camera_link"));
  CHECK(count_lines(se) == 5 && strstr(se, want), "dynid id --lock: 5 warnings expected, with '%s', got:\n%s", want,
        se);
  int warn = 0;
  for (const char* s = se; (s = strstr(s, "dynid: warning: locked joint '")); s++) warn++;
  CHECK(warn == 5, "dynid id --lock: %d warning lines", warn);
}

/* --quiet (identify has it): the model's warnings are not printed */
static void check_quiet(const char* path, const char* opts) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s/no_such_log.csv %s --quiet -o %s/p.csv", path, tmp, opts, tmp);
  int rc = th_run(tmp, cmd);
  const char* se = out_file("stderr");
  CHECK(rc == 1 && count_lines(se) == 1 && !strstr(se, "warning"), "identify --quiet: exit %d, stderr:\n%s", rc, se);
  snprintf(cmd, sizeof cmd, "./dynid identify %s %s/no_such_log.csv %s -o %s/p.csv", path, tmp, opts, tmp);
  rc = th_run(tmp, cmd);
  se = out_file("stderr");
  CHECK(rc == 1 && count_lines(se) == 6 && strstr(se, "dynid: warning: locked joint 'laser_tilt_joint' at 0 rad"),
        "identify without --quiet: exit %d, stderr:\n%s", rc, se);
}

/* the program's --lock errors: one line and exit 1, usage errors exit 2 */
static void check_lock_cli_errors(const char* path, const char* opts) {
  static const struct { const char* lock; const char* expect; } bad[] = {
    {"arm_3_joint=0", "--lock 'arm_3_joint' is on the chain between 'torso_fixed_link' and 'arm_4_link'; only joints "
                      "off the chain can be locked"},
    {"camera_joint=0", "--lock 'camera_joint' is a fixed joint; only moving joints off the chain can be locked"},
    {"no_joint=0", "--lock 'no_joint': no joint of that name"},
  };
  static const char* const usage[] = {"head_1_joint=abc", "head_1_joint", "=0.5", "head_1_joint=", "head_1_joint=inf"};
  char cmd[2048];
  for (int i = 0; i < 3; i++) {
    snprintf(cmd, sizeof cmd, "./dynid model %s %s --lock %s", path, opts, bad[i].lock);
    int rc = th_run(tmp, cmd);
    const char* se = out_file("stderr");
    CHECK(rc == 1 && count_lines(se) == 1 && !strncmp(se, "dynid: ", 7) && strstr(se, path) &&
          strstr(se, bad[i].expect), "--lock %s: exit %d, stderr: %s", bad[i].lock, rc, se);
  }
  for (int i = 0; i < 5; i++) {
    snprintf(cmd, sizeof cmd, "./dynid model %s %s --lock '%s'", path, opts, usage[i]);
    int rc = th_run(tmp, cmd);
    const char* se = out_file("stderr");
    CHECK(rc == 2 && strstr(se, "dynid: model: --lock: expected JOINT=VALUE"), "--lock '%s': exit %d, stderr: %s",
          usage[i], rc, se);
  }
  int rc = th_run(tmp, "./dynid model datasets/models/planar3r.csv --lock j1=0");
  const char* se = out_file("stderr");
  CHECK(rc == 2 && strstr(se, "--lock needs a URDF model"), "--lock on a table: exit %d, stderr: %s", rc, se);
  rc = th_run(tmp, "./dynid bench --lock j1=0");
  CHECK(rc == 2, "bench --lock without a model: exit %d", rc);
  /* without --tip the two moving branches are the usual error */
  snprintf(cmd, sizeof cmd, "./dynid model %s --base torso_fixed_link", path);
  rc = th_run(tmp, cmd);
  se = out_file("stderr");
  CHECK(rc == 1 && count_lines(se) == 1 && strstr(se, "choose one with --tip"), "no --tip: exit %d, %s", rc, se);
}

/* the program: dynid id --lock against KDL, its warnings, --quiet, errors */
static void program(void) {
  const char* path = "build/tests/lock_cli.urdf";
  robot_t R;
  write_robot(path, &R, 1, NULL);
  char err[DY_ERRSZ] = "";
  kdl_urdf* k = kdl_urdf_load(path, err, sizeof err);
  CHECK(k != NULL, "kdl: %s", err);
  if (!k) return;
  const char* opts = "--base torso_fixed_link --tip arm_4_link";
  check_id_lock(path, opts, &R, k);
  check_quiet(path, opts);
  check_lock_cli_errors(path, opts);
  kdl_urdf_free(k);
}

int main(void) {
  mkdir("build", 0777);
  mkdir("build/tests", 0777);
  snprintf(tmp, sizeof tmp, "build/tests/lock_run_%d", (int)getpid());
  mkdir(tmp, 0777);
  locked();
  errors();
  dynamics();
  program();
  return test_report();
}

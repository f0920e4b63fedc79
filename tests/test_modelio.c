/* SPDX-License-Identifier: MIT */
/* dynid tests: the model writers (core/model_write.c) and what the table
 * reader learnt for them (#! directives, the standard column form).
 *
 * 1. Round trips on scrambled random URDFs with tilted and offset bases,
 *    tools, a camera, fixed links between joints and prismatic joints
 *    (tests/urdfgen.h), n = 1..7, with and without joint terms: the model O
 *    read from the URDF is written with dy_write_model as a table and as a
 *    URDF, each read back with no options, and compared with O: torques
 *    (dy_rnea, 1e-12 of the torque scale), inertia matrix (dy_crba, 1e-12 of
 *    its largest entry) and tip pose (dy_fk(m, q, n), 1e-12 m) at random
 *    states; both read-back models also against KDL's RNE and JntToMass on
 *    a chain built from O (tests/kdl_shim.h, 1e-10: KDL's own round-off),
 *    and the written URDF file parsed by KDL itself (tests/kdl_urdf.h, no
 *    dynid code) against O's torques, joint terms included (1e-10);
 *    the table also to the same DH numbers, limits and names. With --base
 *    (gravity not along -z of the base) the URDF is written with a turned
 *    base and a warning; it reads back to the same dynamics, and to the same
 *    poses with --base base.
 * 2. Inconsistent parameters (mass < 0 with a first moment, mass 0 with a
 *    first moment, an indefinite inertia about the centre of mass) round trip
 *    bit-exactly through a table in the standard form, with the '#' line and
 *    a note on reading; a URDF refuses them in one line naming the link,
 *    leaving no file. Consistent ones use the centre-of-mass form.
 * 3. Directives: a table with gravity, base and tip read back; other CSV
 *    readers (no callback) still see comments; each malformed directive
 *    gives its FILE:LINE:COL error (more cases in tests/bad/model_directive_*).
 * 4. --gravity: a note in m->notes when it differs from the file's (table
 *    directive, URDF root), none when equal or when the file says nothing.
 * 5. Gravity a URDF cannot hold as it is (not along -z of the base,
 *    |g| != 9.81, g = 0): written with a warning (return 1) and read back to
 *    the same torques (turned base; 9.81 in the same direction; zero with
 *    --gravity 0,0,0).
 * 6. The program: `dynid model x.urdf -o y.urdf` and `-o y.csv`, then
 *    `dynid id y.* STATES` equals `dynid id x.urdf STATES` (1e-12 relative),
 *    and `dynid model` refusing a URDF for inconsistent parameters. */
#include "urdfgen.h"
#include "kdl_shim.h"
#include "kdl_urdf.h"
#include "core/dynamics.h"
#include "core/io.h"
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR "build/tests/modelio"

static double max_tau, max_H, max_fk, max_kdl;

static double maxabs(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
}

/* A (parameters pa) and B (pb) at random states: the largest torque,
 * inertia-matrix (relative to their scales) and tip-pose differences;
 * pose = 0 skips the pose */
static void compare(const dyModel* A, const double* pa, const dyModel* B, const double* pb, int pose,
                    const char* what) {
  int n = A->n;
  CHECK(B->n == n, "%s: %d joints read back, expected %d", what, B->n, n);
  if (B->n != n) return;
  dyData* da = dy_make_data(A);
  dyData* db = dy_make_data(B);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], ta[DY_MAXJ], tb[DY_MAXJ];
  double Ha[DY_MAXJ*DY_MAXJ], Hb[DY_MAXJ*DY_MAXJ], Ra[9], pa3[3], Rb[9], pb3[3];
  double wt = 0, st = 0, wH = 0, sH = 0, wf = 0;
  for (int s = 0; s < 6; s++) {
    th_random_state(n, q, qd, qdd);
    dy_rnea(A, da, pa, q, qd, qdd, ta);
    dy_rnea(B, db, pb, q, qd, qdd, tb);
    st = fmax(st, maxabs(ta, n));
    for (int j = 0; j < n; j++) wt = fmax(wt, fabs(ta[j] - tb[j]));
    dy_crba(A, da, pa, q, Ha);
    dy_crba(B, db, pb, q, Hb);
    sH = fmax(sH, maxabs(Ha, n*n));
    for (int k = 0; k < n*n; k++) wH = fmax(wH, fabs(Ha[k] - Hb[k]));
    dy_fk(A, q, n, Ra, pa3);
    dy_fk(B, q, n, Rb, pb3);
    for (int k = 0; k < 9; k++) wf = fmax(wf, fabs(Ra[k] - Rb[k]));
    for (int k = 0; k < 3; k++) wf = fmax(wf, fabs(pa3[k] - pb3[k]));
  }
  wt /= fmax(1, st); wH /= fmax(1e-300, sH);
  max_tau = fmax(max_tau, wt); max_H = fmax(max_H, wH);
  CHECK(wt <= 1e-12, "%s: torques differ by %.3g of the torque scale %.3g", what, wt, st);
  CHECK(wH <= 1e-12, "%s: inertia matrices differ by %.3g of the largest entry", what, wH);
  if (pose) {
    max_fk = fmax(max_fk, wf);
    CHECK(wf <= 1e-12, "%s: tip poses differ by %.3g", what, wf);
  }
  dy_free_data(da); dy_free_data(db);
}

/* B (parameters pb) against KDL's chain of A (built from A and pa) */
static void compare_kdl(const dyModel* A, const double* pa, const dyModel* B, const double* pb, const char* what) {
  int n = A->n;
  if (B->n != n) return;
  kdl_chain* k = kdl_make(A, pa, KDL_AXIS);
  CHECK(k != NULL, "%s: kdl_make failed", what);
  if (!k) return;
  dyData* db = dy_make_data(B);
  double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], tk[DY_MAXJ], tb[DY_MAXJ], Hk[DY_MAXJ*DY_MAXJ], Hb[DY_MAXJ*DY_MAXJ];
  double w = 0, st = 0, sH = 0, wH = 0;
  int ok = 1;
  for (int s = 0; s < 4; s++) {
    th_random_state(n, q, qd, qdd);
    ok &= kdl_id(k, q, qd, qdd, tk) == 0 && kdl_mass(k, q, Hk) == 0;
    dy_rnea(B, db, pb, q, qd, qdd, tb);
    dy_crba(B, db, pb, q, Hb);
    st = fmax(st, maxabs(tk, n)); sH = fmax(sH, maxabs(Hk, n*n));
    for (int j = 0; j < n; j++) w = fmax(w, fabs(tk[j] - tb[j]));
    for (int j = 0; j < n*n; j++) wH = fmax(wH, fabs(Hk[j] - Hb[j]));
  }
  w = fmax(w / fmax(1, st), wH / fmax(1e-300, sH));
  max_kdl = fmax(max_kdl, w);
  CHECK(ok && w <= 1e-10, "%s: KDL of the original vs the model read back: %.3g (KDL status %d)", what, w, ok);
  dy_free_data(db);
  kdl_free(k);
}

/* par with the joint terms zeroed */
static void links_only(const dyModel* m, const double* par, double* out) {
  memcpy(out, par, sizeof(double) * (size_t)dy_npar(m));
  for (int k = DY_NPAR_LINK * m->n; k < dy_npar(m); k++) out[k] = 0;
}

static int joint_terms(const dyModel* m) {
  for (int k = DY_NPAR_LINK * m->n; k < dy_npar(m); k++) if (m->par[k] != 0) return 1;
  return 0;
}

/* ------------------------------------------------------------ 1. round trips */

/* O written as a table (tab) and read back: the same dynamics (and KDL's),
 * DH numbers, limits, names, gravity, base and tip bit-exact; -1 if it does
 * not read back */
static int rt_via_table(const dyModel* O, const char* tab, const char* what) {
  char err[DY_ERRSZ];
  const int n = O->n;
  dyModel* T = NULL;
  int r = dy_write_model(tab, O, O->par, "written by test_modelio\nsecond line", err, sizeof err);
  CHECK(r == 0, "%s: write: %d %s", what, r, err);
  if (dy_load_model(tab, NULL, &T, err, sizeof err)) { CHECK(0, "%s: read back: %s", what, err); return -1; }
  compare(O, O->par, T, T->par, 1, what);
  compare_kdl(O, O->par, T, T->par, what);
  int same = T->n == n && T->has_friction == O->has_friction;
  for (int j = 0; same && j < n; j++)
    same = T->jnt_type[j] == O->jnt_type[j] && T->dh_alpha[j] == O->dh_alpha[j] && T->dh_a[j] == O->dh_a[j] &&
           T->dh_theta[j] == O->dh_theta[j] && T->dh_d[j] == O->dh_d[j] && !strcmp(T->jnt_name[j], O->jnt_name[j]) &&
           T->jnt_qmin[j] == O->jnt_qmin[j] && T->jnt_qmax[j] == O->jnt_qmax[j] &&
           T->jnt_qdmax[j] == O->jnt_qdmax[j] && T->jnt_taumax[j] == O->jnt_taumax[j];
  same = same && !memcmp(T->gravity, O->gravity, sizeof O->gravity) &&
         !memcmp(T->base_T, O->base_T, sizeof O->base_T) && !memcmp(T->tip_T, O->tip_T, sizeof O->tip_T);
  CHECK(same, "%s: DH numbers, limits, names, gravity, base or tip not bit-exact", what);
  dy_free_model(T);
  return 0;
}

/* KDL from the written URDF file itself, by its own parser (no dynid
 * conversion): the original's torques (parameters po), joint terms
 * included (1e-10 of the torque scale: both are exact descriptions of one
 * tree); U is the file read back, for the joint names */
static void check_kdl_file(const dyModel* O, const double* po, const dyModel* U, const char* urdf, const char* what) {
  char err[DY_ERRSZ];
  const int n = O->n;
  kdl_urdf* k = kdl_urdf_load(urdf, err, sizeof err);
  CHECK(k != NULL, "%s: KDL cannot load the written URDF: %s", what, err);
  dyData* d = dy_make_data(O);
  const char* names[DY_MAXJ];
  for (int j = 0; j < n; j++) names[j] = U->jnt_name[j];
  double worst = 0, scale = 1e-12;
  for (int s = 0; k && d && s < 10; s++) {
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ], ta[DY_MAXJ], tb[DY_MAXJ];
    th_random_state(n, q, qd, qdd);
    dy_rnea(O, d, po, q, qd, qdd, ta);
    if (kdl_urdf_id(k, names, n, q, qd, qdd, tb)) { worst = INFINITY; break; }
    for (int j = 0; j < n; j++) { worst = fmax(worst, fabs(ta[j] - tb[j])); scale = fmax(scale, fabs(ta[j])); }
  }
  max_kdl = fmax(max_kdl, worst / scale);
  CHECK(worst <= 1e-10 * scale, "%s: KDL on the written URDF vs the original: %.3g of %.3g", what, worst, scale);
  dy_free_data(d);
  kdl_urdf_free(k);
}

/* the read-back U (and, variant 1, with --base base) against O's parameters
 * po; joint names, types and limits */
static void rt_urdf_read(const dyModel* O, const double* po, const dyModel* U, const char* urdf, int variant,
                         const char* what) {
  char err[DY_ERRSZ];
  const int n = O->n;
  compare(O, po, U, U->par, variant != 1, what);
  compare_kdl(O, po, U, U->par, what);
  check_kdl_file(O, po, U, urdf, what);
  if (variant == 1) {   /* poses in the source base frame with --base base */
    dyModel* Ub = NULL;
    dyLoadOpt ob = {0};
    ob.base = "base";
    if (dy_load_model(urdf, &ob, &Ub, err, sizeof err)) CHECK(0, "%s --base base: %s", what, err);
    else compare(O, po, Ub, Ub->par, 1, "via URDF, read with --base base");
    dy_free_model(Ub);
  }
  for (int j = 0; U && j < n && j < U->n; j++)
    CHECK(!strcmp(U->jnt_name[j], O->jnt_name[j]) && U->jnt_type[j] == O->jnt_type[j] &&
          U->jnt_qmin[j] == O->jnt_qmin[j] && U->jnt_qmax[j] == O->jnt_qmax[j] &&
          U->jnt_qdmax[j] == O->jnt_qdmax[j] && U->jnt_taumax[j] == O->jnt_taumax[j],
          "%s: joint %d name, type or limits", what, j + 1);
}

/* O written as a URDF (a turned base warns: variant 1) and read back */
static void rt_via_urdf(const dyModel* O, const char* urdf, int variant, int friction, const char* what) {
  char err[DY_ERRSZ];
  dyModel* U = NULL;
  int r = dy_write_model(urdf, O, O->par, "written by test_modelio", err, sizeof err);
  if (variant == 1)
    CHECK(r == 1 && strstr(err, "gravity is not along -z of the base frame"), "%s: expected the turned-base "
          "warning, got %d '%s'", what, r, err);
  else CHECK(r == 0, "%s: write: %d %s", what, r, err);
  if (r < 0) return;
  if (dy_load_model(urdf, NULL, &U, err, sizeof err)) { CHECK(0, "%s: read back: %s", what, err); return; }
  CHECK(U->load_fk_err < 1e-12, "%s: load_fk_err %.3g", what, U->load_fk_err);
  /* the joint terms are in <dynamics>; a reader that does not read them
   * gives a model without (then the link parameters are compared) */
  const char* text = th_slurp(urdf);
  if (friction) CHECK(strstr(text, "<dynamics damping=\"") && strstr(text, "armature=\""), "%s: no <dynamics>", what);
  double po[14 * DY_MAXJ];
  if (joint_terms(U)) memcpy(po, O->par, sizeof(double) * (size_t)dy_npar(O));
  else links_only(O, O->par, po);
  rt_urdf_read(O, po, U, urdf, variant, what);
  dy_free_model(U);
}

/* a random chain written as a scrambled URDF (tests/urdfgen.h), loaded,
 * given random joint terms (friction), and written as a table and as URDF */
static void roundtrip(int trial, int n, double psnap, int variant, int friction) {
  char src[256], tab[256], urdf[256], what[96], err[DY_ERRSZ];
  snprintf(src, sizeof src, DIR "/rt_%d.urdf", trial);
  snprintf(tab, sizeof tab, DIR "/rt_%d_out.csv", trial);
  snprintf(urdf, sizeof urdf, DIR "/rt_%d_out.urdf", trial);
  dyModel* dh = th_random_model(n, 0.3, psnap, 0);
  th_urdf g;
  if (th_write_urdf(src, trial, dh, variant, &g)) { CHECK(0, "cannot write %s", src); dy_free_model(dh); return; }
  dyModel* O = NULL;
  if (dy_load_urdf(src, &g.opt, &O, err, sizeof err)) CHECK(0, "%s: %s", src, err);
  else {
    if (friction) {
      O->has_friction = 1;
      for (int j = 0; j < n; j++) {
        double* pj = O->par + DY_NPAR_LINK*n + DY_NPAR_JNT*j;
        pj[DY_IA] = th_uniform(0, 0.5); pj[DY_FV] = th_uniform(0, 2);
        pj[DY_FC] = th_uniform(0, 2);   pj[DY_FO] = th_uniform(-1, 1);
      }
    }
    snprintf(what, sizeof what, "trial %d (n=%d, variant %d) via table", trial, n, variant);
    if (rt_via_table(O, tab, what) == 0) {
      snprintf(what, sizeof what, "trial %d (n=%d, variant %d) via URDF", trial, n, variant);
      rt_via_urdf(O, urdf, variant, friction, what);
    }
  }
  dy_free_model(O);
  dy_free_model(g.E); dy_free_model(dh);
}

/* the robot of the problem report: world -> base_link tilted rpy 0.25 -0.1
 * 0.4 and offset, a prismatic joint, a tool; `dynid model` to .csv and
 * .urdf, each read back with no options */
static void tilted(void) {
  const char* src = DIR "/tilted.urdf";
  write_text(src,
    "<?xml version=\"1.0\"?>\n<robot name=\"tilted\">\n"
    "  <link name=\"world\"/>\n"
    "  <joint name=\"mount\" type=\"fixed\"><origin xyz=\"0.3 -0.2 0.75\" rpy=\"0.25 -0.1 0.4\"/>"
    "<parent link=\"world\"/><child link=\"base_link\"/></joint>\n"
    "  <link name=\"base_link\"/>\n"
    "  <joint name=\"shoulder\" type=\"revolute\"><origin xyz=\"0 0 0.3\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-2\" upper=\"2\" velocity=\"2\" effort=\"100\"/><parent link=\"base_link\"/>"
    "<child link=\"l1\"/></joint>\n"
    "  <link name=\"l1\"><inertial><origin xyz=\"0.01 0.02 0.1\" rpy=\"0.3 0.2 0.1\"/><mass value=\"4\"/>"
    "<inertia ixx=\"0.05\" ixy=\"0.001\" ixz=\"0\" iyy=\"0.04\" iyz=\"0.002\" izz=\"0.03\"/></inertial></link>\n"
    "  <joint name=\"elbow\" type=\"revolute\"><origin xyz=\"0.1 0 0.2\" rpy=\"1.5707963267948966 0 0\"/>"
    "<axis xyz=\"0 0 -1\"/><limit lower=\"-2\" upper=\"2\" velocity=\"2\" effort=\"80\"/>"
    "<parent link=\"l1\"/><child link=\"l2\"/></joint>\n"
    "  <link name=\"l2\"><inertial><origin xyz=\"0.2 0 0\"/><mass value=\"2.5\"/>"
    "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.03\" iyz=\"0\" izz=\"0.03\"/></inertial></link>\n"
    "  <joint name=\"slide\" type=\"prismatic\"><origin xyz=\"0.4 0 0\" rpy=\"0 1.5707963267948966 0\"/>"
    "<axis xyz=\"0 0 1\"/><limit lower=\"0\" upper=\"0.3\" velocity=\"0.5\" effort=\"200\"/>"
    "<parent link=\"l2\"/><child link=\"l3\"/></joint>\n"
    "  <link name=\"l3\"><inertial><origin xyz=\"0 0.01 0.05\"/><mass value=\"1.2\"/>"
    "<inertia ixx=\"0.004\" ixy=\"0\" ixz=\"0\" iyy=\"0.004\" iyz=\"0\" izz=\"0.001\"/></inertial></link>\n"
    "  <joint name=\"tool_joint\" type=\"fixed\"><origin xyz=\"0 0 0.12\" rpy=\"0 0 0.7\"/>"
    "<parent link=\"l3\"/><child link=\"tool\"/></joint>\n"
    "  <link name=\"tool\"><inertial><origin xyz=\"0 0 0.03\"/><mass value=\"0.4\"/>"
    "<inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.0005\"/></inertial></link>\n"
    "</robot>\n");
  dyModel *O = NULL, *A = NULL, *B = NULL;
  char err[DY_ERRSZ], cmd[512];
  if (dy_load_model(src, NULL, &O, err, sizeof err)) { CHECK(0, "tilted: %s", err); return; }
  CHECK(fabs(O->gravity[2] + 9.81) > 0.1, "tilted: gravity in frame 0 along -z: %g %g %g", O->gravity[0],
        O->gravity[1], O->gravity[2]);
  const char* outs[2] = {DIR "/tilted_out.csv", DIR "/tilted_out.urdf"};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "./dynid model %s -o %s", src, outs[k]);
    int rc = th_run(DIR, cmd);
    CHECK(rc == 0 && th_only_wrote(th_slurp(DIR "/stderr")), "tilted: %s: exit %d: %s", cmd, rc, th_slurp(DIR "/stderr"));
    dyModel** R = k ? &B : &A;
    if (dy_load_model(outs[k], NULL, R, err, sizeof err)) { CHECK(0, "tilted: %s", err); continue; }
    compare(O, O->par, *R, (*R)->par, 1, k ? "tilted via dynid model -o .urdf" : "tilted via dynid model -o .csv");
  }
  if (A) CHECK(!memcmp(A->gravity, O->gravity, sizeof O->gravity), "tilted: table gravity not bit-exact");
  /* the table says so in a directive an older reader takes for a comment */
  char line[200];
  snprintf(line, sizeof line, "#! gravity, %.17g, %.17g, %.17g\n", O->gravity[0], O->gravity[1], O->gravity[2]);
  CHECK(strstr(th_slurp(outs[0]), line) != NULL, "tilted: no '%s' in the table", line);
  dy_free_model(O); dy_free_model(A); dy_free_model(B);
}

/* a robot at a gimbal-locked joint rotation (alpha = pi/2, theta = pi/2:
 * URDF pitch exactly pi/2) round trips through a URDF */
static void gimbal(void) {
  dyModel* m = th_random_model(4, 0, 0, 0);
  m->dh_alpha[1] = M_PI / 2; m->dh_theta[1] = M_PI / 2;
  m->dh_alpha[2] = -M_PI / 2; m->dh_theta[2] = -M_PI / 2 + 1e-9;
  m->dh_alpha[3] = M_PI / 2; m->dh_theta[3] = M_PI / 2 - 3e-5;
  dy_set_const(m);
  m->gravity[0] = 0; m->gravity[1] = 0; m->gravity[2] = -9.81;
  char err[DY_ERRSZ];
  const char* p = DIR "/gimbal.urdf";
  int r = dy_write_model(p, m, m->par, NULL, err, sizeof err);
  CHECK(r == 0, "gimbal: write %d %s", r, err);
  dyModel* U = NULL;
  if (dy_load_model(p, NULL, &U, err, sizeof err)) { CHECK(0, "gimbal: %s", err); dy_free_model(m); return; }
  compare(m, m->par, U, U->par, 1, "gimbal-locked rpy via URDF");
  dy_free_model(U); dy_free_model(m);
}

/* ------------------------------------------------------------ 2. inconsistent */

static void inconsistent(void) {
  dyModel* m = th_random_model(4, 0.25, 0, 1);
  snprintf(m->source, sizeof m->source, "identified");
  double* p = m->par;
  p[DY_NPAR_LINK*1 + DY_M] = -0.5;                     /* link 2: negative mass, h != 0 */
  p[DY_NPAR_LINK*2 + DY_M] = 0;                        /* link 3: no mass, h != 0 */
  p[DY_NPAR_LINK*2 + DY_MX] = 0.3;
  p[DY_NPAR_LINK*0 + DY_XX] = -p[DY_NPAR_LINK*0 + DY_XX];   /* link 1: indefinite */
  p[DY_NPAR_LINK*3 + DY_XY] = 0.1 / 3;                 /* link 4 fine, digits everywhere */
  char err[DY_ERRSZ];
  const char* t = DIR "/inconsistent.csv";
  int r = dy_write_model(t, m, p, "identified by a test", err, sizeof err);
  CHECK(r == 0, "inconsistent: table write %d %s", r, err);
  const char* text = th_slurp(t);
  CHECK(!strncmp(text, "# identified by a test\n# the parameters are not physically consistent (links 1, 2, 3)", 84),
        "inconsistent: first lines: %.120s", text);
  CHECK(strstr(text, "\njoint,type,alpha,a,theta,d,m,mx,my,mz,xx,xy,xz,yy,yz,zz,ia,fv,fc,fo") != NULL,
        "inconsistent: not the standard form");
  dyModel* T = NULL;
  if (dy_load_model(t, NULL, &T, err, sizeof err)) CHECK(0, "inconsistent: read back: %s", err);
  else {
    CHECK(!memcmp(T->par, p, sizeof(double) * (size_t)dy_npar(m)), "inconsistent: parameters not bit-exact");
    CHECK(strstr(T->notes, "links 1, 2, 3: parameters not physically consistent (the pseudo-inertia") != NULL,
          "inconsistent: note '%s'", T->notes);
    compare(m, p, T, T->par, 1, "inconsistent via table");
  }
  dy_free_model(T);
  /* a URDF cannot hold them: one line, no file */
  const char* u = DIR "/inconsistent.urdf";
  unlink(u);
  r = dy_write_model(u, m, p, NULL, err, sizeof err);
  CHECK(r == -1 && !strchr(err, '\n') && access(u, F_OK) != 0 &&
        strstr(err, DIR "/inconsistent.urdf: link 1 is not a rigid body a URDF <inertial> can hold") == err &&
        strstr(err, "write a .csv model table instead"), "inconsistent: URDF: %d '%s'", r, err);
  /* the program says the same */
  char cmd[400];
  snprintf(cmd, sizeof cmd, "./dynid model %s -o %s", t, u);
  int rc = th_run(DIR, cmd);
  const char* e = th_slurp(DIR "/stderr");
  /* the loader's note on the table comes first as a warning, then the one error line */
  const char* el = strstr(e, "dynid: " DIR "/inconsistent.urdf: link 1 is not a rigid body");
  CHECK(rc == 1 && el && strchr(el, '\n') == e + strlen(e) - 1 && access(u, F_OK) != 0,
        "inconsistent: dynid model -o .urdf: %d %s", rc, e);
  /* consistent parameters: the centre-of-mass form, no such line */
  dyModel* c = th_random_model(3, 0, 0, 0);
  r = dy_write_model(DIR "/consistent.csv", c, c->par, NULL, err, sizeof err);
  text = th_slurp(DIR "/consistent.csv");
  CHECK(r == 0 && strstr(text, "\njoint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz,name\n") &&
        !strstr(text, "consistent"), "consistent: centre-of-mass form expected");
  /* a user's table in the centre-of-mass form keeps being checked */
  write_text(DIR "/negmass.csv", "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
             "1,R,0,0,0,0,-1,0,0,0,1,0,0,1,0,1\n");
  dyModel* x = NULL;
  CHECK(dy_load_model(DIR "/negmass.csv", NULL, &x, err, sizeof err) == -1 &&
        strstr(err, DIR "/negmass.csv:2:7: negative mass"), "negative mass in the com form: %s", err);
  dy_free_model(x);
  dy_free_model(c);
  dy_free_model(m);
}

/* ------------------------------------------------------------ 3. directives */

static void directives(void) {
  const char* t = DIR "/dir.csv";
  write_text(t, "# a hand-written table\n"
                "  #!  Gravity ,0,-9.81 , 0\n"
                "#! tip, 0,-1,0, 1,0,0, 0,0,1, 0.1,0,0.05\n"
                "#! base,1,0,0,0,1,0,0,0,1,0,0,0.8\n"
                "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
                "1,R,0,0,0,0,1,0.5,0,0,0.01,0,0,0.01,0,0.01\n"
                "2,R,0,1,0,0,1,0.5,0,0,0.01,0,0,0.01,0,0.01\n");
  dyModel* m = NULL;
  char err[DY_ERRSZ];
  if (dy_load_model(t, NULL, &m, err, sizeof err)) { CHECK(0, "directives: %s", err); return; }
  CHECK(m->gravity[0] == 0 && m->gravity[1] == -9.81 && m->gravity[2] == 0, "directives: gravity");
  CHECK(m->tip_T[1] == -1 && m->tip_T[3] == 1 && m->tip_T[9] == 0.1 && m->tip_T[11] == 0.05, "directives: tip");
  CHECK(m->base_T[0] == 1 && m->base_T[11] == 0.8, "directives: base");
  double q[2] = {0, 0}, R[9], p[3];
  dy_fk(m, q, 2, R, p);
  CHECK(fabs(p[0] - 1.1) + fabs(p[1]) + fabs(p[2] - 0.85) < 1e-15, "directives: tip position %g %g %g", p[0], p[1],
        p[2]);
  CHECK(m->notes[0] == 0, "directives: notes '%s'", m->notes);
  dy_free_model(m);
  /* another CSV reader sees comments: the header is the first row */
  dyCsv* c = dy_csv_open(t, err, sizeof err);
  char** f; int nf;
  CHECK(c && dy_csv_next(c, &f, &nf, err, sizeof err) == 1 && nf == 16 && !strcmp(f[0], "joint") &&
        dy_csv_line(c) == 5, "directives: a reader without the callback does not skip #! lines");
  dy_csv_close(c);
  /* malformed ones (tests/bad/model_directive_* hold more, run by test_cli) */
  static const struct { const char* text; const char* expect; } bad[] = {
    {"#!\n", ":1:3: unknown directive '' (gravity, base, tip, transmission or motors)"},
    {"#! gravity 0 0 -9.81\n", ":1:12: expected ',' before '0 0 -9.81'"},
    {"#! gravity, 0, 0, -9.81, 1\n", ":1:26: 'gravity' takes 3 numbers, found more"},
    {"#! gravity, 0, 0, nan\n", ":1:19: 'gravity': not a finite number: 'nan'"},
    {"#! gravity, 0, , -9.81\n", ":1:16: 'gravity': not a finite number: ''"},
    {"#! tip, -1,0,0, 0,1,0, 0,0,1, 0,0,0\n", ":1:4: 'tip': r11..r33 is not a rotation matrix (determinant -1;"},
    /* lengths beyond DY_MAXLEN (a fuzz finding: a prismatic joint's d of
     * -1e30 m passed, and its URDF kept no digit of the arm) */
    {"#! base, 1,0,0, 0,1,0, 0,0,1, 1e9,0,0\n", ": the base offset (1e+09, 0, 0) m: a length beyond 1e+06 m"},
    {"#! tip, 1,0,0, 0,1,0, 0,0,1, 0,-2e6,0\n", ": the tip offset (0, -2e+06, 0) m: a length beyond 1e+06 m"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512], want[300];
    snprintf(text, sizeof text, "%sjoint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
             "1,R,0,0,0,0,1,0,0,0,1,0,0,1,0,1\n", bad[i].text);
    write_text(DIR "/dirbad.csv", text);
    snprintf(want, sizeof want, DIR "/dirbad.csv%s", bad[i].expect);
    dyModel* x = (dyModel*)1;
    int r = dy_load_model(DIR "/dirbad.csv", NULL, &x, err, sizeof err);
    CHECK(r == -1 && x == NULL && strstr(err, want) == err && !strchr(err, '\n'),
          "directive '%.30s': '%s', expected '%s'", bad[i].text, err, want);
  }
}

/* ------------------------------------------------------------ 4. --gravity */

static void gravity_override(void) {
  char err[DY_ERRSZ];
  dyLoadOpt o = {0};
  o.has_gravity = 1;
  o.gravity[2] = -9.81;
  write_text(DIR "/g.csv", "#! gravity, 0.0686, -2.605, -9.458\n"
             "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n1,R,0,0,0,0,1,0.2,0,0,1,0,0,1,0,1\n");
  write_text(DIR "/g0.csv", "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz\n"
             "1,R,0,0,0,0,1,0.2,0,0,1,0,0,1,0,1\n");
  dyModel* m = NULL;
  if (!dy_load_model(DIR "/g.csv", &o, &m, err, sizeof err)) {
    CHECK(m->gravity[1] == 0 && m->gravity[2] == -9.81, "--gravity does not override the directive");
    CHECK(!strcmp(m->notes, "--gravity 0,0,-9.81 overrides the model file's gravity 0.0686,-2.605,-9.458 m/s^2\n"),
          "--gravity note: '%s'", m->notes);
  } else CHECK(0, "g.csv: %s", err);
  dy_free_model(m); m = NULL;
  o.gravity[0] = 0.0686; o.gravity[1] = -2.605; o.gravity[2] = -9.458;
  if (!dy_load_model(DIR "/g.csv", &o, &m, err, sizeof err)) CHECK(m->notes[0] == 0, "equal --gravity: a note");
  dy_free_model(m); m = NULL;
  if (!dy_load_model(DIR "/g0.csv", &o, &m, err, sizeof err)) CHECK(m->notes[0] == 0, "no directive: a note");
  dy_free_model(m); m = NULL;
  /* a URDF: its root says (0,0,-9.81) */
  o.gravity[0] = 0; o.gravity[1] = 0; o.gravity[2] = -9.81;
  if (!dy_load_model(DIR "/tilted.urdf", &o, &m, err, sizeof err))
    CHECK(strstr(m->notes, "--gravity 0,0,-9.81 overrides the model file's gravity ") == m->notes,
          "URDF --gravity note: '%s'", m->notes);
  else CHECK(0, "tilted.urdf: %s", err);
  dy_free_model(m);
  /* every file written from the model repeats the note */
  int rc = th_run(DIR, "./dynid model " DIR "/g.csv --gravity 0,0,-9.81 -o " DIR "/g_out.csv");
  CHECK(rc == 0 && strstr(th_slurp(DIR "/g_out.csv"), "# --gravity 0,0,-9.81 overrides the model file's gravity"),
        "dynid model --gravity: the note is not in the written table");
}

/* ------------------------------------------------------------ 5. URDF gravity */

static void urdf_gravity(void) {
  static const double gs[3][3] = {{0, -9.81, 0}, {0, 0, -3}, {0, 0, 0}};
  static const char* const want[3] = {"gravity is not along -z of the base frame",
                                      "a URDF has gravity 9.81 m/s^2, the model 3",
                                      "a URDF has gravity 9.81 m/s^2 along -z of its root, the model none"};
  for (int k = 0; k < 3; k++) {
    dyModel* m = th_random_model(3, 0.3, 0, 0);
    memcpy(m->gravity, gs[k], sizeof m->gravity);
    char err[DY_ERRSZ], what[64];
    snprintf(what, sizeof what, "URDF gravity %g,%g,%g", gs[k][0], gs[k][1], gs[k][2]);
    int r = dy_write_model(DIR "/grav.urdf", m, m->par, NULL, err, sizeof err);
    CHECK(r == 1 && strstr(err, want[k]) == err && !strchr(err, '\n'), "%s: %d '%s'", what, r, err);
    CHECK(strstr(th_slurp(DIR "/grav.urdf"), "Written with losses:") != NULL, "%s: no XML comment", what);
    /* read back: the nearest gravity (direction kept, 9.81 m/s^2); zero
     * gravity with --gravity 0,0,0 (zero in any frame 0) */
    dyLoadOpt o = {0};
    if (k == 2) o.has_gravity = 1;
    if (k == 1) m->gravity[2] = -9.81;
    dyModel* U = NULL;
    if (dy_load_model(DIR "/grav.urdf", &o, &U, err, sizeof err)) CHECK(0, "%s: %s", what, err);
    else compare(m, m->par, U, U->par, k > 0, what);
    dy_free_model(U);
    dy_free_model(m);
  }
}

/* ------------------------------------------------------------ 6. program */

static int read_rows(const char* path, double* out, int max) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  char line[4096];
  int cnt = 0;
  do   /* the provenance '#' lines, then the header */
    if (!fgets(line, sizeof line, f)) { fclose(f); return -1; }
  while (line[0] == '#');
  while (fgets(line, sizeof line, f))
    for (char* s = line; *s && *s != '\n' && cnt < max;) {
      char* e;
      out[cnt++] = strtod(s, &e);
      if (e == s) { fclose(f); return -1; }
      s = *e == ',' ? e + 1 : e;
    }
  fclose(f);
  return cnt;
}

static void program(void) {
  /* a scrambled random URDF with friction-free joints and a states file */
  int n = 6;
  dyModel* dh = th_random_model(n, 0.3, 0.3, 0);
  th_urdf g;
  const char* src = DIR "/prog.urdf";
  if (th_write_urdf(src, 99, dh, 2, &g)) { CHECK(0, "cannot write %s", src); dy_free_model(dh); return; }
  FILE* f = fopen(DIR "/states.csv", "w");
  if (!f) { CHECK(0, "states"); dy_free_model(dh); dy_free_model(g.E); return; }
  static const char* const pre[3] = {"q", "qd", "qdd"};
  for (int k = 0; k < 3; k++) for (int j = 0; j < n; j++) fprintf(f, "%s%s%d", k || j ? "," : "", pre[k], j + 1);
  fputc('\n', f);
  for (int s = 0; s < 8; s++) {
    double q[DY_MAXJ], qd[DY_MAXJ], qdd[DY_MAXJ];
    th_random_state(n, q, qd, qdd);
    for (int j = 0; j < 3*n; j++) fprintf(f, "%s%.17g", j ? "," : "", j < n ? q[j] : j < 2*n ? qd[j-n] : qdd[j-2*n]);
    fputc('\n', f);
  }
  fclose(f);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "./dynid id %s " DIR "/states.csv --tip tool -o " DIR "/tau0.csv", src);
  int rc = th_run(DIR, cmd);
  CHECK(rc == 0, "dynid id on the source: %d %s", rc, th_slurp(DIR "/stderr"));
  static double t0[8 * DY_MAXJ], t1[8 * DY_MAXJ];
  int c0 = read_rows(DIR "/tau0.csv", t0, 8 * DY_MAXJ);
  const char* outs[2] = {DIR "/prog_out.urdf", DIR "/prog_out.csv"};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "./dynid model %s --tip tool -o %s", src, outs[k]);
    rc = th_run(DIR, cmd);
    CHECK(rc == 0 && th_only_wrote(th_slurp(DIR "/stderr")), "%s: %d %s", cmd, rc, th_slurp(DIR "/stderr"));
    snprintf(cmd, sizeof cmd, "./dynid id %s " DIR "/states.csv -o " DIR "/tau1.csv", outs[k]);
    rc = th_run(DIR, cmd);
    CHECK(rc == 0, "%s: %d %s", cmd, rc, th_slurp(DIR "/stderr"));
    int c1 = read_rows(DIR "/tau1.csv", t1, 8 * DY_MAXJ);
    double w = 0, sc = maxabs(t0, c0 > 0 ? c0 : 0);
    for (int i = 0; i < c0 && i < c1; i++) w = fmax(w, fabs(t0[i] - t1[i]));
    CHECK(c0 == 8 * n && c1 == c0 && w <= 1e-12 * fmax(1, sc),
          "dynid id via %s: %d/%d values, differ by %.3g (scale %.3g)", outs[k], c1, c0, w, sc);
  }
  /* standard output: a table with the directives */
  snprintf(cmd, sizeof cmd, "./dynid model %s", src);
  rc = th_run(DIR, cmd);
  const char* o = th_slurp(DIR "/stdout");
  CHECK(rc == 0 && strstr(o, "\n#! gravity, ") && strstr(o, "\n#! base, ") && strstr(o, "\n#! tip, "),
        "dynid model to standard output: no directives");
  dy_free_model(g.E);
  dy_free_model(dh);
}

int main(void) {
  mkdir("build", 0777);
  mkdir("build/tests", 0777);
  mkdir(DIR, 0777);
  for (int t = 0; t < 30; t++) roundtrip(t, 1 + t % 7, t % 2 ? 0.6 : 0.0, t % 3, t % 4 >= 2);
  tilted();
  gimbal();
  inconsistent();
  directives();
  gravity_override();
  urdf_gravity();
  program();
  printf("model files read back: largest differences torque %.2g, inertia matrix %.2g (relative), tip pose %.2g m, "
         "vs KDL %.2g\n", max_tau, max_H, max_fk, max_kdl);
  return test_report();
}

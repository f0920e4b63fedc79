/* SPDX-License-Identifier: MIT */
/* dynid core: the model writers. Every file they write reads back (through
 * dy_load_model, without options) to the same robot: the same torques,
 * inertia matrix and tip pose.
 *
 * Table: the modified-DH rows of dy_load_table with the #! directives
 * gravity, base and tip, numbers in %.17g (bit-exact on reading). The link
 * parameters go in the centre-of-mass columns when every link fits them
 * (dy_link_comform, and the conversion to the centre of mass and back keeps
 * them to 1e-13 of the link's largest), else in the standard columns
 * m,mx,my,mz,xx..zz, which hold any values exactly.
 *
 * URDF: generated from the model, not from its source.
 *   world --fixed, rotation W--> base --joint 1: base_T D_1--> link1
 *         --joint j: D_j--> linkj ... linkn --fixed: tip_T--> tip
 * D_j = Rx(alpha_j) Tx(a_j) Rz(theta_j) Tz(d_j) is the DH transform at
 * q = 0, the joint axis is z of link j (0 0 1), so the URDF joint position
 * is q_j with its sign: a revolute joint turns by Rz(q) after D_j, a
 * prismatic one moves by Tz(q) (Rz(theta + q) Tz(d) = D Rz(q) since Rz and
 * Tz commute). Link j's frame is DH frame j; its <inertial> sits at the
 * centre of mass with rpy 0, so the inertia about the centre of mass is
 * written in frame-j axes (tensor entries, as URDF's ixy). A URDF's gravity
 * is (0,0,-9.81) in its root: W (base in world) turns the base frame so
 * that this is the model's gravity, W g_base = (0,0,-|g|) with g_base =
 * R_base g (the smallest such turn; none when g_base is along -z already,
 * the usual case of a model read from a URDF). Rotations are written as
 * URDF rpy (R = Rz(y) Ry(p) Rx(r)) by rpy_of, accurate to round-off also
 * near pitch = +-pi/2. A link's bounding ellipsoid (model.h, link_ell)
 * is a table's columns ell_cx..ell_rz and a URDF link's <collision> box
 * (urdf_link), which the URDF reader turns back into the same ellipsoid
 * whenever it reads the same DH frames back (a model read from a URDF; a
 * table whose last theta_n is not 0 reads back with frame n turned by
 * -theta_n, and then the ellipsoid is the one around the turned box). */
#include "core/io.h"
#include "core/mathu.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ helpers */

/* the lines of text (separated by '\n') as "# line" */
static void put_hash_lines(FILE* f, const char* text) {
  if (!text) return;
  while (*text) {
    size_t L = strcspn(text, "\n");
    fprintf(f, "#%s%.*s\n", L ? " " : "", (int)L, text);
    text += L;
    if (*text == '\n') text++;
  }
}

/* the lines of text indented inside an XML comment: "--" cannot occur in
 * one, so every second '-' of a run gets a space before it */
/* XML 1.0 takes UTF-8 text without control characters (tab excepted):
 * the length of the valid character at s (1..4 bytes), or 0 when s starts
 * a byte sequence an XML reader refuses (a stray continuation byte, an
 * overlong or truncated sequence, a surrogate, a control character, the
 * noncharacters U+FFFE and U+FFFF, which XML 1.0 excludes) */
static int xml_char_len(const unsigned char* s) {
  if (s[0] < 0x80) return s[0] >= 0x20 || s[0] == '\t' ? 1 : 0;
  int L = s[0] >= 0xF5 ? 0 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  for (int i = 1; i < L; i++) if ((s[i] & 0xC0) != 0x80) return 0;
  if (L == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
  if (L == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
  if (L == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] >= 0xBE) return 0;   /* U+FFFE, U+FFFF: no XML Char */
  return L;
}

/* 1 if the whole of s is text an XML reader takes */
static int xml_clean(const char* s) {
  for (const unsigned char* u = (const unsigned char*)s; *u;) {
    int L = xml_char_len(u);
    if (!L) return 0;
    u += L;
  }
  return 1;
}

static void put_xml_lines(FILE* f, const char* text) {
  if (!text) return;
  while (*text) {
    size_t L = strcspn(text, "\n");
    fputs("     ", f);
    for (size_t i = 0; i < L;) {
      int c = xml_char_len((const unsigned char*)text + i);
      if (c == 0 || i + (size_t)c > L) { fputc('?', f); i++; continue; }   /* not XML text */
      if (text[i] == '-' && i && text[i-1] == '-') fputc(' ', f);
      fwrite(text + i, 1, (size_t)c, f);
      i += (size_t)c;
    }
    if (L && text[L-1] == '-') fputc(' ', f);
    fputc('\n', f);
    text += L;
    if (*text == '\n') text++;
  }
}

/* a text cell, quoted (with doubled quotes) when it holds , " or a line end */
static void put_csv_text(FILE* f, const char* s) {
  if (!strpbrk(s, ",\"\n\r")) { fputs(s, f); return; }
  fputc('"', f);
  for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
  fputc('"', f);
}

/* text in an XML attribute value */
static void put_xml_text(FILE* f, const char* s) {
  for (; *s; s++)
    switch (*s) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&apos;", f); break;
      default: fputc(*s, f);
    }
}

static void put_nums(FILE* f, const double* x, int cnt, const char* sep) {
  for (int k = 0; k < cnt; k++) {
    if (k) fputs(sep, f);
    dy_fprint_double(f, x[k]);
  }
}

/* 1 if a joint parameter of par (IA FV FC FO) is non-zero */
static int has_joint_terms(const dyModel* m, const double* par) {
  for (int k = DY_NPAR_LINK * m->n; k < dy_npar(m); k++)
    if (par[k] != 0) return 1;
  return 0;
}

/* 1 if a position limit of joint j is finite; any limit (with qddmax) */
static int has_limits(const dyModel* m) {
  for (int j = 0; j < m->n; j++)
    if (isfinite(m->jnt_qmin[j]) || isfinite(m->jnt_qmax[j]) || isfinite(m->jnt_qdmax[j]) ||
        isfinite(m->jnt_qddmax[j]) || isfinite(m->jnt_taumax[j])) return 1;
  return 0;
}

/* 1 if some link has a bounding ellipsoid */
static int has_ellipsoids(const dyModel* m) {
  for (int j = 0; j < m->n; j++)
    if (dy_ell_given(m->link_ell + 6*j)) return 1;
  return 0;
}

/* every link's bounding ellipsoid none or valid (dy_ell_bad); 0, or -1
 * with err set */
static int ell_check(const dyModel* m, char* err, int errsz) {
  static const char* const nm[6] = {"cx", "cy", "cz", "rx", "ry", "rz"};
  for (int j = 0; j < m->n; j++) {
    int k = dy_ell_bad(m->link_ell + 6*j);
    if (k >= 0) {
      snprintf(err, (size_t)errsz, "%s: link %d: bounding ellipsoid %s = %g m is not valid (semi-axes > 0, "
               "|values| <= %g m)", m->source, j + 1, nm[k], m->link_ell[6*j + k], DY_MAXLEN);
      return -1;
    }
  }
  return 0;
}

/* 1 if the centre-of-mass form keeps link parameters p10: dy_link_comform
 * and from_com(to_com(p)) = p to 1e-13 of the largest |p_k| (a tiny mass
 * with a large first moment loses digits in J_O - m(|c|^2 1 - c c^T)) */
static int comform_keeps(const double p10[10]) {
  if (!dy_link_comform(p10)) return 0;
  double mass, c[3], Ic[6], back[10], big = 0, worst = 0;
  dy_linkpar_to_com(p10, &mass, c, Ic);
  dy_linkpar_from_com(back, mass, c, Ic);
  for (int k = 0; k < DY_NPAR_LINK; k++) {
    big = fmax(big, fabs(p10[k]));
    worst = fmax(worst, fabs(back[k] - p10[k]));
  }
  return worst <= 1e-13 * big;
}

/* "1, 4, 5" of the links for which ok(p10) is 0 (count returned) */
static int link_list(const dyModel* m, const double* par, int (*ok)(const double*), char* buf, size_t sz) {
  int cnt = 0;
  buf[0] = 0;
  for (int j = 0; j < m->n; j++)
    if (!ok(par + DY_NPAR_LINK*j)) {
      size_t L = strlen(buf);
      snprintf(buf + L, sz - L, "%s%d", cnt++ ? ", " : "", j + 1);
    }
  return cnt;
}

/* DH transform of joint j at q = 0 as R (row-major) then p */
static void dh_pose(const dyModel* m, int j, double T[12]) {
  dy_jointframe(m, j, 0, T, T + 9);
}

/* URDF roll, pitch, yaw of R = Rz(y) Ry(p) Rx(r). Roll and pitch from the
 * last row (s_p = -R31, c_p = |(R32, R33)|); yaw as the planar rotation
 * that best takes the first two rows of Ry(p) Rx(r) onto those of R
 * (Procrustes: well conditioned also at c_p -> 0, where roll and yaw are
 * individually ill-determined but the rotation they make is not). */
static void rpy_of(const double R[9], double rpy[3]) {
  double r = atan2(R[7], R[8]), p = atan2(-R[6], hypot(R[7], R[8]));
  double cr = cos(r), sr = sin(r), cp = cos(p), sp = sin(p);
  double A0[3] = {cp, sp*sr, sp*cr}, A1[3] = {0, cr, -sr};   /* rows 1, 2 of Ry(p) Rx(r) */
  double sy = 0, cy = 0;
  for (int k = 0; k < 3; k++) {
    cy += A0[k]*R[k] + A1[k]*R[3+k];
    sy += A0[k]*R[3+k] - A1[k]*R[k];
  }
  rpy[0] = r; rpy[1] = p; rpy[2] = atan2(sy, cy);
}

static void put_origin(FILE* f, const double T[12]) {
  double rpy[3];
  rpy_of(T, rpy);
  for (int k = 0; k < 3; k++) if (rpy[k] == 0) rpy[k] = 0;   /* no -0 */
  fputs("<origin xyz=\"", f);
  put_nums(f, T + 9, 3, " ");
  fputs("\" rpy=\"", f);
  put_nums(f, rpy, 3, " ");
  fputs("\"/>", f);
}

/* ------------------------------------------------------------ table */

int dy_write_table(FILE* f, const dyModel* m, const double* par, const char* comment,
                   char* err, int errsz) {
  int n = m->n;
  char types[DY_MAXJ + 1], bad[200];
  for (int j = 0; j < n; j++) types[j] = m->jnt_type[j] == DY_REVOLUTE ? 'R' : 'P';
  types[n] = 0;
  for (int k = 0; k < dy_npar(m); k++)
    if (!isfinite(par[k])) {
      char nm[16];
      dy_parname(m, k, nm, sizeof nm);
      snprintf(err, (size_t)errsz, "%s: parameter %s is not finite", m->source, nm);
      return -1;
    }
  if (ell_check(m, err, errsz)) return -1;
  int com = 1, fric = m->has_friction || has_joint_terms(m, par), limits = has_limits(m);
  int ell = has_ellipsoids(m);
  for (int j = 0; j < n; j++) com &= comform_keeps(par + DY_NPAR_LINK*j);
  put_hash_lines(f, comment);
  if (!com) {
    int nb = link_list(m, par, dy_link_consistent, bad, sizeof bad);
    if (nb) fprintf(f, "# the parameters are not physically consistent (link%s %s): written about O_j, "
                    "columns m,mx,my,mz,xx..zz\n", nb > 1 ? "s" : "", bad);
    else fprintf(f, "# the parameters are written about O_j, columns m,mx,my,mz,xx..zz, to keep every digit\n");
  }
  put_hash_lines(f, m->notes);
  fprintf(f, "# model of %s\n# joints: %d (%s), modified DH (Khalil-Kleinfinger / Craig)\n", m->source, n, types);
  fprintf(f, "# gravity in frame 0: %.17g,%.17g,%.17g m/s^2\n", m->gravity[0], m->gravity[1], m->gravity[2]);
  fprintf(f, "# largest forward-kinematics difference, source description vs. this table, over random configurations: %.3g (m, rad)\n",
          m->load_fk_err);
  fprintf(f, "# tip frame in frame %d: R = [%.6g %.6g %.6g; %.6g %.6g %.6g; %.6g %.6g %.6g], p = (%.6g, %.6g, %.6g) m\n",
          n, m->tip_T[0], m->tip_T[1], m->tip_T[2], m->tip_T[3], m->tip_T[4], m->tip_T[5], m->tip_T[6],
          m->tip_T[7], m->tip_T[8], m->tip_T[9], m->tip_T[10], m->tip_T[11]);
  fputs("#! gravity, ", f);
  put_nums(f, m->gravity, 3, ", ");
  fputs("\n#! base, ", f);
  put_nums(f, m->base_T, 12, ", ");
  fputs("\n#! tip, ", f);
  put_nums(f, m->tip_T, 12, ", ");
  if (m->has_trans) {   /* motor velocity = R qd, row k for motor k */
    fputs("\n#! transmission, ", f);
    put_nums(f, m->trans, n*n, ", ");
  }
  if (m->nmot) {   /* IAM FVM FCM of each coupled motor [kg m^2, N m s/rad, N m] */
    fputs("\n#! motors, ", f);
    put_nums(f, par + DY_NPL*n, DY_NPAR_MOT * m->nmot, ", ");
  }
  fprintf(f, "\njoint,type,alpha,a,theta,d,m,%s%s%s%s,name\n",
          com ? "cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz" : "mx,my,mz,xx,xy,xz,yy,yz,zz",
          fric ? ",ia,fv,fc,fo" : "", limits ? ",qmin,qmax,qdmax,qddmax,taumax" : "",
          ell ? ",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz" : "");
  for (int j = 0; j < n; j++) {
    const double* pl = par + DY_NPAR_LINK*j;
    double v[14] = {m->dh_alpha[j], m->dh_a[j], m->dh_theta[j], m->dh_d[j]};
    if (com) {
      dy_linkpar_to_com(pl, v + 4, v + 5, v + 8);
    } else {
      v[4] = pl[DY_M];
      for (int k = 0; k < 3; k++) v[5 + k] = pl[DY_MX + k];
      for (int k = 0; k < 6; k++) v[8 + k] = pl[DY_XX + k];
    }
    fprintf(f, "%d,%c,", j + 1, types[j]);
    put_nums(f, v, 14, ",");
    if (fric) { fputc(',', f); put_nums(f, par + DY_NPAR_LINK*n + DY_NPAR_JNT*j, DY_NPAR_JNT, ","); }
    if (limits) {
      double lim[5] = {m->jnt_qmin[j], m->jnt_qmax[j], m->jnt_qdmax[j], m->jnt_qddmax[j], m->jnt_taumax[j]};
      for (int k = 0; k < 5; k++) {
        fputc(',', f);
        if (isfinite(lim[k])) dy_fprint_double(f, lim[k]);
      }
    }
    if (ell) {
      if (dy_ell_given(m->link_ell + 6*j)) { fputc(',', f); put_nums(f, m->link_ell + 6*j, 6, ","); }
      else fputs(",,,,,,", f);
    }
    fputc(',', f);
    put_csv_text(f, m->jnt_name[j]);
    fputc('\n', f);
  }
  if (ferror(f)) { snprintf(err, (size_t)errsz, "%s: write error", m->source); return -1; }
  return 0;
}

/* ------------------------------------------------------------ URDF */

/* append "; "-separated text to a warning buffer */
static void warn(char* w, size_t sz, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(char* w, size_t sz, const char* fmt, ...) {
  size_t L = strlen(w);
  if (L && L + 2 < sz) { strcpy(w + L, "; "); L += 2; }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w + L, sz - L, fmt, ap);
  va_end(ap);
}

/* the rotation W (base frame in world) with W g = (0,0,-|g|): the smallest
 * turn taking the unit vector u = g/|g| to -z (Rodrigues with v = u x -z,
 * c = -u_z: W = 1 + [v]x + [v]x^2 / (1 + c)); half a turn about x when u is +z */
static void gravity_turn(double W[9], const double u[3]) {
  dyu_eye3(W);
  double c = -u[2];
  if (u[0] == 0 && u[1] == 0 && c > 0) return;
  if (1 + c < 1e-12) { W[4] = W[8] = -1; return; }
  double v[3] = {-u[1], u[0], 0};   /* u x (0,0,-1) */
  double K[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0}, K2[9];
  dyu_mulMat3(K2, K, K);
  for (int k = 0; k < 9; k++) W[k] += K[k] + K2[k] / (1 + c);
}

/* Every link a rigid body a URDF can hold (finite, dy_link_comform) and
 * every joint parameter finite, before anything is written. */
static int urdf_check(const dyModel* m, const double* par, char* err, int errsz) {
  int n = m->n;
  for (int j = 0; j < n; j++) {
    const double* pl = par + DY_NPAR_LINK*j;
    for (int k = 0; k < DY_NPAR_LINK; k++)
      if (!isfinite(pl[k])) {
        snprintf(err, (size_t)errsz, "%s: link %d: a parameter is not finite", m->source, j + 1);
        return -1;
      }
    if (!dy_link_comform(pl)) {
      snprintf(err, (size_t)errsz, "%s: link %d is not a rigid body a URDF <inertial> can hold (mass %.6g kg%s): "
               "URDF readers reject it; write a .csv model table instead", m->source, j + 1, pl[DY_M],
               pl[DY_M] > 0 ? ", inertia about the centre of mass not positive semi-definite"
               : pl[DY_M] == 0 ? " with a first moment" : "");
      return -1;
    }
  }
  for (int k = DY_NPAR_LINK*n; k < dy_npar(m); k++)
    if (!isfinite(par[k])) { snprintf(err, (size_t)errsz, "%s: a joint parameter is not finite", m->source); return -1; }
  return ell_check(m, err, errsz);
}

/* Gravity: a URDF has 9.81 m/s^2 along -z of its root, so the base frame
 * is turned in the root 'world' by W with W g_base = (0,0,-|g|)
 * (gravity_turn); what a URDF cannot hold goes to the warnings w (no
 * gravity, another magnitude, a turned base, acceleration limits). */
static void urdf_gravity(const dyModel* m, double W[12], char* w, size_t wsz) {
  double gb[3], g = sqrt(dyu_dot3(m->gravity, m->gravity));
  dyu_mulMatVec3(gb, m->base_T, m->gravity);
  dyu_eye3(W);
  if (g == 0) {
    warn(w, wsz, "a URDF has gravity 9.81 m/s^2 along -z of its root, the model none: written with "
         "9.81 along -z of the base (read it back with --gravity 0,0,0)");
  } else {
    double u[3] = {gb[0] / g, gb[1] / g, gb[2] / g};
    gravity_turn(W, u);
    if (fabs(g - 9.81) > 1e-9 * 9.81)
      warn(w, wsz, "a URDF has gravity 9.81 m/s^2, the model %.6g: written with its direction only "
           "(gravity torques read back are 9.81/%.6g times the model's; a .csv model table keeps it)", g, g);
    if (hypot(u[0], u[1]) > 1e-12 || u[2] > 0)   /* turned by more than round-off */
      warn(w, wsz, "gravity is not along -z of the base frame: link 'base' is turned in the root 'world', "
           "so poses read back are in 'world' unless read with --base base");
  }
  for (int j = 0; j < m->n; j++)
    if (isfinite(m->jnt_qddmax[j])) {
      warn(w, wsz, "a URDF has no acceleration limits: qddmax not written");
      break;
    }
}

/* joint names: the model's, unique, not those of the fixed joints and
 * text an XML reader takes (else jointJ, then jointJ_T) */
static void urdf_names(const dyModel* m, char names[][64]) {
  for (int j = 0; j < m->n; j++) {
    snprintf(names[j], 64, "%s", m->jnt_name[j]);
    for (int t = 1;; t++) {
      int ok = names[j][0] && xml_clean(names[j]) && strcmp(names[j], "world_joint") && strcmp(names[j], "tip_joint");
      for (int i = 0; ok && i < j; i++) ok = strcmp(names[i], names[j]) != 0;
      if (ok) break;
      if (t == 1) snprintf(names[j], 64, "joint%d", j + 1);
      else snprintf(names[j], 64, "joint%d_%d", j + 1, t);
    }
  }
}

/* Joint j: link j-1 (the base for j = 0, with base_T) to link j at the DH
 * pose, axis z; its limits (velocity and effort 0 = no limit, which a URDF
 * reader demands) and, with friction, <dynamics> FV FC IA FO. */
static void urdf_joint(FILE* f, const dyModel* m, const double* par, int j, const char* name, int fric) {
  double T[12], D[12];
  dh_pose(m, j, D);
  if (j == 0) dyu_composePose(T, T + 9, m->base_T, m->base_T + 9, D, D + 9);
  else memcpy(T, D, sizeof T);
  int rev = m->jnt_type[j] == DY_REVOLUTE, lo = isfinite(m->jnt_qmin[j]), hi = isfinite(m->jnt_qmax[j]);
  fputs("  <joint name=\"", f);
  put_xml_text(f, name);
  fprintf(f, "\" type=\"%s\">\n    ", !rev ? "prismatic" : lo || hi ? "revolute" : "continuous");
  put_origin(f, T);
  if (j) fprintf(f, "<parent link=\"link%d\"/>", j);
  else fputs("<parent link=\"base\"/>", f);
  fprintf(f, "<child link=\"link%d\"/><axis xyz=\"0 0 1\"/>\n", j + 1);
  if (!rev || lo || hi || isfinite(m->jnt_qdmax[j]) || isfinite(m->jnt_taumax[j])) {
    fputs("    <limit", f);
    if (lo) { fputs(" lower=\"", f); dy_fprint_double(f, m->jnt_qmin[j]); fputc('"', f); }
    if (hi) { fputs(" upper=\"", f); dy_fprint_double(f, m->jnt_qmax[j]); fputc('"', f); }
    fputs(" velocity=\"", f);
    dy_fprint_double(f, isfinite(m->jnt_qdmax[j]) ? m->jnt_qdmax[j] : 0);
    fputs("\" effort=\"", f);
    dy_fprint_double(f, isfinite(m->jnt_taumax[j]) ? m->jnt_taumax[j] : 0);
    fputs("\"/>\n", f);
  }
  if (fric) {
    const double* pj = par + DY_NPAR_LINK*m->n + DY_NPAR_JNT*j;
    fputs("    <dynamics damping=\"", f); dy_fprint_double(f, pj[DY_FV]);
    fputs("\" friction=\"", f); dy_fprint_double(f, pj[DY_FC]);
    fputs("\" armature=\"", f); dy_fprint_double(f, pj[DY_IA]);
    fputs("\" offset=\"", f); dy_fprint_double(f, pj[DY_FO]);
    fputs("\"/>\n", f);
  }
  fputs("  </joint>\n", f);
}

/* link j + 1: its <inertial> about the centre of mass (none when every
 * parameter is zero) and its bounding ellipsoid e (centre c, semi-axes r
 * in frame j = the link frame) as a <collision> box centred at c with
 * half-extents r / sqrt(3): its corners lie on the ellipsoid, so the
 * reader's circumscribing ellipsoid of the box is e again */
static void urdf_link(FILE* f, const double* pl, const double* e, int j) {
  int zero = 1;
  for (int k = 0; k < DY_NPAR_LINK; k++) zero &= pl[k] == 0;
  fprintf(f, "  <link name=\"link%d\">", j + 1);
  if (!zero) {
    double mass, c[3], Ic[6];
    dy_linkpar_to_com(pl, &mass, c, Ic);
    fputs("<inertial><origin xyz=\"", f);
    put_nums(f, c, 3, " ");
    fputs("\" rpy=\"0 0 0\"/><mass value=\"", f);
    dy_fprint_double(f, mass);
    fputs("\"/>\n    <inertia", f);
    static const char* const in[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    for (int k = 0; k < 6; k++) { fprintf(f, " %s=\"", in[k]); dy_fprint_double(f, Ic[k]); fputc('"', f); }
    fputs("/></inertial>", f);
  }
  if (dy_ell_given(e)) {
    double size[3];
    for (int k = 0; k < 3; k++) size[k] = 2 * e[3+k] / sqrt(3.0);
    fputs(zero ? "" : "\n    ", f);
    fputs("<collision><origin xyz=\"", f);
    put_nums(f, e, 3, " ");
    fputs("\" rpy=\"0 0 0\"/><geometry><box size=\"", f);
    put_nums(f, size, 3, " ");
    fputs("\"/></geometry></collision>", f);
  }
  fputs("</link>\n", f);
}

/* ------------------------------------------------- URDF transmissions
 * R as ros_control's <transmission> elements, in the form the URDF reader
 * takes back (urdf.c: row k is the motor of joint k; actuatorK / jointK
 * roles): a row with only its diagonal entry is a SimpleTransmission
 * (n_a = r_kk, n_j = 1); two rows k < l that turn joints k and l only (and
 * no other row turns those) are, with n_j1 = 1,
 *   FourBarLinkageTransmission   r_kl = 0:  n_a1 = r_kk, n_a2 = r_lk, n_j2 = r_ll / r_lk
 *                                r_lk = 0:  the same with k and l swapped
 *   DifferentialTransmission     r_kk r_ll + r_lk r_kl = 0 (to 1e-12):
 *                                n_a1 = r_kk, n_j2 = r_kl / r_kk, n_a2 = r_lk
 * which read back to R within a rounding (a product of a quotient). Unit
 * rows need none. Any other row (a motor turning three joints, a 2 x 2
 * block of neither form, a motor numbered unlike its joint) has no
 * ros_control form: it is listed in the warning and reads back as a unit
 * row. */

/* 1 if row k of R (n x n) has non-zeros only in columns k and l (l may be k) */
static int row_in(const double* R, int n, int k, int l) {
  for (int j = 0; j < n; j++) if (j != k && j != l && R[k*n + j] != 0) return 0;
  return R[k*n + k] != 0;
}

/* 1 if column j of R has non-zeros only in rows k and l */
static int col_in(const double* R, int n, int j, int k, int l) {
  for (int i = 0; i < n; i++) if (i != k && i != l && R[i*n + j] != 0) return 0;
  return 1;
}

/* one <joint> or <actuator> with its role and reduction */
static void trans_part(FILE* f, const char* what, const char* name, const char* role, int idx, double red) {
  fprintf(f, "    <%s name=\"", what);
  put_xml_text(f, name);
  fprintf(f, "\"><role>%s%d</role>", role, idx);
  if (!strcmp(what, "joint")) fputs("<hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface>", f);
  fputs("<mechanicalReduction>", f);
  dy_fprint_double(f, red);
  fprintf(f, "</mechanicalReduction></%s>\n", what);
}

/* a transmission of type (Simple, FourBarLinkage, Differential) on joints
 * a (joint1, actuator1) and b (< 0: none), actuator reductions na, joint nj */
static void trans_elem(FILE* f, char names[][64], const char* type, int a, int b, const double na[2], const double nj[2]) {
  if (!f) return;   /* the dry run that finds the losses */
  fprintf(f, "  <transmission name=\"transmission%d\"><type>transmission_interface/%sTransmission</type>\n", a + 1, type);
  char mot[32];
  for (int i = 0; i < (b < 0 ? 1 : 2); i++) {
    snprintf(mot, sizeof mot, "motor%d", (i ? b : a) + 1);
    trans_part(f, "actuator", mot, "actuator", i + 1, na[i]);
    trans_part(f, "joint", names[i ? b : a], "joint", i + 1, nj[i]);
  }
  fputs("  </transmission>\n", f);
}

/* rows k, l as a four-bar linkage or a differential; 0, or -1: neither */
static int trans_pair(FILE* f, char names[][64], const double* R, int n, int k, int l) {
  double kk = R[k*n + k], kl = R[k*n + l], lk = R[l*n + k], ll = R[l*n + l];
  if (kl == 0 && lk == 0) return -1;
  if (kl == 0 || lk == 0) {   /* four-bar: actuator1's row turns joint1 only */
    int a = kl == 0 ? k : l, b = kl == 0 ? l : k;
    double na[2] = {R[a*n + a], R[b*n + a]}, nj[2] = {1, R[b*n + b] / R[b*n + a]};
    trans_elem(f, names, "FourBarLinkage", a, b, na, nj);
    return 0;
  }
  if (!(fabs(kk * ll + lk * kl) <= 1e-12 * fmax(fabs(kk * ll), fabs(lk * kl)))) return -1;
  double na[2] = {kk, lk}, nj[2] = {1, kl / kk};
  trans_elem(f, names, "Differential", k, l, na, nj);
  return 0;
}

/* every row of m->trans that has a ros_control form (f NULL: none written);
 * the others, 1-based, listed in bad (count returned) */
static int urdf_transmissions(FILE* f, const dyModel* m, char names[][64], char* bad, size_t bsz) {
  const int n = m->n;
  const double* R = m->trans;
  int done[DY_MAXJ] = {0}, nbad = 0;
  size_t L = 0;
  for (int k = 0; k < n; k++) {   /* pairs first: a closed 2 x 2 block of a form */
    int l = -1;
    for (int j = k + 1; j < n && l < 0; j++) if (R[k*n + j] != 0 || R[j*n + k] != 0) l = j;
    if (done[k] || l < 0 || done[l] || !row_in(R, n, k, l) || !row_in(R, n, l, k) || !col_in(R, n, k, k, l) ||
        !col_in(R, n, l, k, l) || trans_pair(f, names, R, n, k, l)) continue;
    done[k] = done[l] = 1;
  }
  for (int k = 0; k < n; k++) {
    if (done[k]) continue;
    if (row_in(R, n, k, k)) {   /* a motor of this joint alone */
      double na[2] = {R[k*n + k], 1}, nj[2] = {1, 1};
      if (R[k*n + k] != 1) trans_elem(f, names, "Simple", k, -1, na, nj);
      continue;
    }
    nbad++;
    if (L + 8 < bsz) L += (size_t)snprintf(bad + L, bsz - L, "%s%d", L ? ", " : "", k + 1);
  }
  return nbad;
}

/* the transmission's losses into the warnings: rows without a form, the
 * coupled motors' parameters (a URDF has no place for them) */
static void urdf_trans_warn(const dyModel* m, const double* par, int nbad, const char* bad, char* w, size_t wsz) {
  if (nbad)
    warn(w, wsz, "transmission row%s %s (motor%s turning several joints in no ros_control form: Simple, "
         "Differential, FourBarLinkage) not written: %s back as unit row%s; keep R in a .csv model table "
         "or give --transmission FILE", nbad > 1 ? "s" : "", bad, nbad > 1 ? "s" : "", nbad > 1 ? "they read" :
         "it reads", nbad > 1 ? "s" : "");
  int mp = 0;
  for (int i = 0; i < DY_NPAR_MOT * m->nmot; i++) mp |= par[DY_NPL*m->n + i] != 0;
  if (mp) warn(w, wsz, "the coupled motors' IAM FVM FCM not written (a URDF has no place for them)");
}

int dy_write_urdf(FILE* f, const dyModel* m, const double* par, const char* comment,
                  char* err, int errsz) {
  int n = m->n;
  char w[1024] = "";
  if (urdf_check(m, par, err, errsz)) return -1;
  double W[12] = {0};
  urdf_gravity(m, W, w, sizeof w);
  char names[DY_MAXJ][64];
  urdf_names(m, names);
  if (m->has_trans) {
    char bad[200] = "";
    urdf_trans_warn(m, par, urdf_transmissions(NULL, m, names, bad, sizeof bad), bad, w, sizeof w);
  }
  int fric = m->has_friction || has_joint_terms(m, par);
  char head[400];
  snprintf(head, sizeof head, "dynid: model of %s as a URDF, generated from its modified-DH description", m->source);
  fputs("<?xml version=\"1.0\"?>\n<!--\n", f);
  put_xml_lines(f, head);
  put_xml_lines(f, comment);
  put_xml_lines(f, m->notes);
  if (w[0]) { fputs("     Written with losses:\n", f); put_xml_lines(f, w); }
  fputs("-->\n<robot name=\"dynid\">\n  <link name=\"world\"/>\n  <joint name=\"world_joint\" type=\"fixed\">", f);
  put_origin(f, W);
  fputs("<parent link=\"world\"/><child link=\"base\"/></joint>\n  <link name=\"base\"/>\n", f);
  for (int j = 0; j < n; j++) {
    urdf_joint(f, m, par, j, names[j], fric);
    urdf_link(f, par + DY_NPAR_LINK*j, m->link_ell + 6*j, j);
  }
  fprintf(f, "  <joint name=\"tip_joint\" type=\"fixed\">");
  put_origin(f, m->tip_T);
  fprintf(f, "<parent link=\"link%d\"/><child link=\"tip\"/></joint>\n  <link name=\"tip\"/>\n", n);
  if (m->has_trans) {
    char bad[200];
    urdf_transmissions(f, m, names, bad, sizeof bad);
  }
  fputs("</robot>\n", f);
  if (ferror(f)) { snprintf(err, (size_t)errsz, "%s: write error", m->source); return -1; }
  if (w[0]) { snprintf(err, (size_t)errsz, "%s", w); return 1; }
  return 0;
}

/* ------------------------------------------------------------ by name */

int dy_write_model(const char* path, const dyModel* m, const double* par, const char* comment,
                   char* err, int errsz) {
  size_t L = path ? strlen(path) : 0;
  int urdf = L >= 5 && !strcasecmp(path + L - 5, ".urdf");
  dyOut o;
  if (dy_out_open(&o, path, err, errsz)) return -1;
  char werr[DY_ERRSZ] = "";
  int r = urdf ? dy_write_urdf(o.f, m, par, comment, werr, sizeof werr)
               : dy_write_table(o.f, m, par, comment, werr, sizeof werr);
  if (r < 0) {   /* the writer's "SOURCE: what" becomes "PATH: what" */
    dy_out_abort(&o);
    size_t sl = strlen(m->source);
    const char* what = !strncmp(werr, m->source, sl) && werr[sl] == ':' ? werr + sl + 2 : werr;
    snprintf(err, (size_t)errsz, "%s: %s", o.is_stdout ? "-" : path, what);
    return -1;
  }
  if (dy_out_commit(&o, err, errsz)) return -1;
  snprintf(err, (size_t)errsz, "%s", werr);
  return r;
}

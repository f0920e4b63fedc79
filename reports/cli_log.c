/* SPDX-License-Identifier: MIT */
/* dynid program: the log options shared by every command that reads a log
 * (ident/README.md, Logs; log.h):
 *
 *   --no-header            columns named c1, c2, ... by position
 *   --map NAME=COLUMN      repeatable; ranges: --map q1..q7=c2..c8,
 *                          --map tau1..tau7=Position1..Position7
 *   --gain K1,...,Kn       torque = gain x column (current to torque), one per
 *                          torque column (per motor with a transmission);
 *                          --gain PARAMS: the GAIN rows of a PARAMS file;
 *                          validate, report and payload without --gain:
 *                          those of their PARAMS when it has them
 *   --transmission FILE    the columns are the motors' (read by cli_model
 *                          into the model): q = R^-1 q_m, tau = R^T tau_m
 *   --q-offset O1,...,On   joint position = mapped position + offset
 *   --rows A..B            data rows A to B (1-based after the header; A..
 *                          and ..B leave one end open); with several logs
 *                          (identify) one range for all or A..B,C..D,...
 *                          one per log in order
 *   --cutoff HZ            low-pass cutoff; "none" (or a negative value):
 *                          no filtering; default fs/20
 *   --on-bad drop|stop     bad rows are skipped and counted, or stop the
 *                          read with FILE:ROW:COL (default stop)
 *   --time-scale K         t = K x time column (0.001: ms or a 1 kHz index)
 *   --decimate D           identification rows decimated by D (default
 *                          fs / (2.5 fc)); with --no-parallel every D-th
 *                          filtered sample
 *   --no-parallel          the torque filtered with q and the regressor not
 *                          filtered (before parallel filtering)
 *   --resample HZ          interpolate onto a uniform grid first
 *   --qd-min V             flag samples with |qd_j| < V (Coulomb friction)
 *   --filter-order N       Butterworth order (default 4)
 *   --drop-stale           drop rows that repeat the previous row's q, qd,
 *                          tau with a new time stamp
 *   --derive qdd|qd        recompute qdd (from qd), or qd and qdd (from q),
 *                          ignoring the logged columns
 * Commands list these in their cli_check allowed set (CLI_LOG_OPTS).  */
#include "reports/cli.h"
#include "ident/log.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "Name12" -> prefix length and number 12; -1 without a trailing number */
static int split_num(const char* s, size_t len, size_t* plen, long* num) {
  size_t k = len;
  while (k > 0 && isdigit((unsigned char)s[k-1])) k--;
  if (k == len || len - k > 9) return -1;
  *plen = k;
  *num = strtol(s + k, NULL, 10);
  return 0;
}

/* The two ends of a column range, A (al bytes) and B: the same text around
 * one number (B may be that number alone, for a trailing one); the text
 * before it (plen), the numbers, the text after it (slen, from A's end);
 * -1 if they are not. */
static int split_cols(const char* A, size_t al, const char* B, size_t bl, size_t* plen, long* na, long* nb,
                      size_t* slen) {
  size_t k = 0;
  if (bl && strspn(B, "0123456789") == bl) {   /* B is the number only: A's trailing number */
    if (split_num(A, al, plen, na)) return -1;
    *nb = strtol(B, NULL, 10);
    *slen = 0;
    return bl > 9 ? -1 : 0;
  }
  while (k < al && k < bl && A[k] == B[k]) k++;
  while (k > 0 && isdigit((unsigned char)A[k-1])) k--;   /* back to the start of the number */
  size_t ea = k, eb = k;
  while (ea < al && isdigit((unsigned char)A[ea])) ea++;
  while (eb < bl && isdigit((unsigned char)B[eb])) eb++;
  if (ea == k || eb == k || ea - k > 9 || eb - k > 9 || al - ea != bl - eb || memcmp(A + ea, B + eb, al - ea))
    return -1;
  *plen = k; *slen = al - ea;
  *na = strtol(A + k, NULL, 10); *nb = strtol(B + k, NULL, 10);
  return 0;
}

/* add one or a range of --map entries from "NAME=COLUMN"; 0 or 2 */
static int add_map(dyiLogOpt* o, const char* v) {
  const char* eq = v ? strchr(v, '=') : NULL;
  if (!eq || eq == v || !eq[1])
    return cli_usage("--map: expected NAME=COLUMN (e.g. t=Time, q1..q7=c2..c8), got '%s'", v ? v : "");
  const char* l = v; size_t ll = (size_t)(eq - v);
  const char* rt = eq + 1; size_t rl = strlen(rt);
  const char* ld = strstr(l, "..");
  if (ld && ld > eq) ld = NULL;
  const char* rd = strstr(rt, "..");
  if (!ld != !rd) return cli_usage("--map %s: a range needs '..' on both sides", v);
  if (!ld) {
    if (o->nmap == DY_LOG_MAXMAP) return cli_usage("--map: more than %d entries", DY_LOG_MAXMAP);
    if (ll >= sizeof o->map_name[0] || rl >= sizeof o->map_col[0])
      return cli_usage("--map %s: name too long", v);
    memcpy(o->map_name[o->nmap], l, ll); o->map_name[o->nmap][ll] = 0;
    memcpy(o->map_col[o->nmap], rt, rl); o->map_col[o->nmap][rl] = 0;
    o->nmap++;
    return 0;
  }
  /* ranges: PRE A .. PRE B = COL A' .. COL B' (the column's number may
   * stand inside its name: joint1_pos..joint7_pos) */
  size_t p1, p2, c1, cs; long a, b, ca, cb;
  const char* l2 = ld + 2; size_t l2len = (size_t)(eq - l2);
  const char* r2 = rd + 2;
  if (split_num(l, (size_t)(ld - l), &p1, &a))
    return cli_usage("--map %s: a range is NAME1..NAME2=COL1..COL2 with numbered names", v);
  /* the second end may be the full name or the number only */
  if (split_num(l2, l2len, &p2, &b)) return cli_usage("--map %s: bad range end", v);
  if (p2 && (p2 != p1 || strncmp(l, l2, p1)))
    return cli_usage("--map %s: both ends of a range must share their prefix", v);
  if (split_cols(rt, (size_t)(rd - rt), r2, strlen(r2), &c1, &ca, &cb, &cs))
    return cli_usage("--map %s: the column range must be two names that differ in one number only "
                     "(Position1..Position7, joint1_pos..joint7_pos, c2..c8)", v);
  if (b < a || cb - ca != b - a)
    return cli_usage("--map %s: the two ranges must have the same length", v);
  if (o->nmap + (b - a + 1) > DY_LOG_MAXMAP)
    return cli_usage("--map: more than %d entries", DY_LOG_MAXMAP);
  const char* suf = rd - cs;
  if (p1 > 20 || c1 + cs > 50) return cli_usage("--map %s: name too long", v);
  for (long k = 0; k <= b - a; k++) {
    snprintf(o->map_name[o->nmap], sizeof o->map_name[0], "%.*s%ld", (int)p1, l, a + k);
    snprintf(o->map_col[o->nmap], sizeof o->map_col[0], "%.*s%ld%.*s", (int)c1, rt, ca + k, (int)cs, suf);
    o->nmap++;
  }
  return 0;
}

static int parse_long(const char* s, const char* e, long* out) {
  if (s == e) return -1;
  char* end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end != e || errno || x < 1) return -1;
  *out = x;
  return 0;
}

/* --rows A..B: one range for every log, or one per log (comma-separated,
 * as many as logs); range k into o (A or B may be left out: from the first
 * row, to the last), 1 <= A <= B. 0, or 2 after printing the usage error. */
static int rows_option(const char* v, int k, int nlog, dyiLogOpt* o) {
  int cnt = 1;
  for (const char* p = v; *p; p++) cnt += *p == ',';
  if (cnt > 1 && cnt != nlog)
    return cli_usage(nlog > 1 ? "--rows: one range A..B for every log, or %d ranges (one per log), got '%s'"
                              : "--rows: expected one range A..B (%d log), got '%s'", nlog, v);
  const char* r0 = v;
  for (int i = 0; cnt > 1 && i < k; i++) r0 = strchr(r0, ',') + 1;
  const char* r1 = strchr(r0, ',');
  if (!r1) r1 = r0 + strlen(r0);
  const char* d = strstr(r0, "..");
  if (!d || d >= r1) return cli_usage("--rows: expected A..B, got '%s'", v);
  if ((d > r0 && parse_long(r0, d, &o->row_first)) ||
      (d + 2 < r1 && parse_long(d + 2, r1, &o->row_last)) ||
      (o->row_last && o->row_first > o->row_last))
    return cli_usage("--rows: expected A..B with 1 <= A <= B, got '%s'", v);
  return 0;
}

int cli_logopt(const cliArgs* c, const dyModel* m, dyiLogOpt* o) { return cli_logopt_k(c, m, 0, 1, o); }

/* the gains of this run's logs (--gain, or a PARAMS file's), for the
 * PARAMS file the run writes */
static double run_gain[DY_MAXJ];
static int run_n;

int cli_write_run_gains(FILE* f) { return run_n ? dyi_params_write_gains(f, run_n, run_gain, NULL) : 0; }

/* ---- gains from a PARAMS file's GAIN rows (identify --estimate-gains):
 * --gain FILE takes them (a file without them is an error: the gains are
 * needed); without --gain, validate, report and payload take those of
 * their PARAMS (the second argument) when it has them, said once. 0, or 1
 * after printing. */
static int params_gains(const cliArgs* c, int n, dyiLogOpt* o) {
  const char* v = cli_opt(c, "gain");
  const int given = v != NULL;
  if (!given) {
    static const char* const cmds[] = {"validate", "report", "payload", NULL};
    int k = 0;
    while (cmds[k] && strcmp(cmds[k], c->cmd)) k++;
    if (!cmds[k] || c->npos < 2) return 0;
    v = c->pos[1];
  }
  double sd[DY_MAXJ];
  char err[DY_ERRSZ];
  int r = dyi_params_read_gains(v, n, o->gain, sd, err, sizeof err);
  if (r < 0 && !given) return 0;   /* the command's own read of PARAMS says what is wrong */
  if (r < 0) return cli_fail("--gain %s: %s", v, err);
  if (r == 0 && given)
    return cli_fail("--gain %s: the file has no GAIN rows: the drive gains are needed here (dynid identify "
                    "--estimate-gains writes them; or --gain K1,...,K%d)", v, n);
  if (r == 0) return 0;
  o->has_gain = 1;
  static int said;
  if (!said++ && !cli_flag(c, "quiet"))
    fprintf(stderr, "dynid: torque = gain x logged column with the GAIN rows of %s\n", v);
  return 0;
}

/* defaults -> flags -> every --map -> each option with a value, checked
 * against its range (cli.h) */
int cli_logopt_k(const cliArgs* c, const dyModel* m, int k, int nlog, dyiLogOpt* o) {
  const int n = m->n;
  dyi_log_defaults(o);
  if (m->has_trans) {   /* the model's, or --transmission's (cli_model) */
    o->has_trans = 1;
    memcpy(o->trans, m->trans, sizeof(double) * (size_t)(n*n));
  }
  o->no_header = cli_flag(c, "no-header");
  o->no_parallel = cli_flag(c, "no-parallel");
  o->drop_stale = cli_flag(c, "drop-stale");
  int rc;
  for (int i = 0; i < c->nopt; i++)
    if (!strcmp(c->key[i], "map") && (rc = add_map(o, c->val[i]))) return rc;
  const char* v;
  if ((v = cli_opt(c, "gain")) && !cli_doubles(v, o->gain, n)) o->has_gain = 1;
  else if (v && access(v, R_OK))
    return cli_usage(strchr(v, ',') ? "--gain: expected %d comma-separated numbers, got '%s'"
                                    : "--gain: expected %d comma-separated numbers or a PARAMS file with GAIN rows, "
                                      "got '%s'", n, v);
  else if ((rc = params_gains(c, n, o))) return rc;   /* --gain FILE, or the command's PARAMS */
  if (o->has_gain) { memcpy(run_gain, o->gain, sizeof(double) * (size_t)n); run_n = n; }
  if ((v = cli_opt(c, "q-offset"))) {
    if (cli_doubles(v, o->q_offset, n))
      return cli_usage("--q-offset: expected %d comma-separated numbers [rad|m], got '%s'", n, v);
    o->has_qoff = 1;
  }
  if ((v = cli_opt(c, "rows")) && (rc = rows_option(v, k, nlog, o))) return rc;
  if ((v = cli_opt(c, "cutoff"))) {
    if (!strcmp(v, "none") || !strcmp(v, "off")) o->cutoff_hz = -1;
    else if (cli_doubles(v, &o->cutoff_hz, 1) || o->cutoff_hz == 0)
      return cli_usage("--cutoff: expected a frequency in Hz or 'none', got '%s'", v);
  }
  if ((v = cli_opt(c, "on-bad"))) {
    if (!strcmp(v, "drop")) o->on_bad = 1;
    else if (!strcmp(v, "stop")) o->on_bad = 0;
    else return cli_usage("--on-bad: expected drop or stop, got '%s'", v);
  }
  if ((v = cli_opt(c, "time-scale")) && (cli_doubles(v, &o->time_scale, 1) || !(o->time_scale > 0)))
    return cli_usage("--time-scale: expected a positive number, got '%s'", v);
  if ((v = cli_opt(c, "resample")) && (cli_doubles(v, &o->resample_hz, 1) || !(o->resample_hz > 0)))
    return cli_usage("--resample: expected a rate in Hz, got '%s'", v);
  if ((v = cli_opt(c, "qd-min")) && (cli_doubles(v, &o->qd_min, 1) || !(o->qd_min >= 0)))
    return cli_usage("--qd-min: expected a speed >= 0, got '%s'", v);
  if ((v = cli_opt(c, "derive"))) {
    if (!strcmp(v, "qdd")) o->derive = 1;
    else if (!strcmp(v, "qd")) o->derive = 2;
    else return cli_usage("--derive: expected qdd or qd, got '%s'", v);
  }
  long x;
  if ((v = cli_opt(c, "decimate"))) {
    if (parse_long(v, v + strlen(v), &x) || x > 1000)
      return cli_usage("--decimate: expected an integer 1..1000, got '%s'", v);
    o->decimate = (int)x;
  }
  if ((v = cli_opt(c, "filter-order"))) {
    if (parse_long(v, v + strlen(v), &x) || x > 16)
      return cli_usage("--filter-order: expected an integer 1..16, got '%s'", v);
    o->order = (int)x;
  }
  return 0;
}

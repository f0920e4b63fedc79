/* SPDX-License-Identifier: MIT */
/* dynid program: command-line plumbing shared by the subcommands.
 * Each subcommand lives in reports/cmd_<name>.c as
 *     int cmd_<name>(cliArgs* cli);      returns the exit status 0, 1 or 2
 * Exit status (reports/README.md, Errors, exit status and limits): 0 success; 1 bad input or a
 * numerical failure, with one line "dynid: FILE:ROW:COL: what is wrong" on
 * standard error; 2 bad usage. */
#ifndef DYNID_CLI_H
#define DYNID_CLI_H

#include "core/io.h"
#include "core/model.h"

#define CLI_MAXOPT 64

typedef struct {
  const char* cmd;            /* subcommand name */
  int npos;                   /* positional arguments */
  const char* pos[16];
  int nopt;                   /* options in order of appearance */
  const char* key[CLI_MAXOPT];   /* without the leading "--" ("o" for -o) */
  const char* val[CLI_MAXOPT];   /* NULL for flags */
  dyLoadOpt load;             /* --dh --base --tip --gravity, filled by cli_parse */
  int help;                   /* --help given: cli_check prints the command's help */
  int argc;                   /* the whole command line, for the provenance lines */
  char** argv;
} cliArgs;

/* Value of option key (last occurrence), or NULL. */
const char* cli_opt(const cliArgs* c, const char* key);
/* 1 if flag key was given. */
int cli_flag(const cliArgs* c, const char* key);
/* --quiet (every command): no summary, progress or warnings on standard
 * error; set by cli_check. */
extern int cli_quiet;
/* With --help (c->help): print the command's help on standard output and
 * return 3 (the program then exits 0). Otherwise:
 * check that every option given is in the comma-separated list allowed
 * (the common ones, dh,base,tip,gravity,lock,o, are always allowed), that the
 * positional count is within [minpos, maxpos] and that every --lock is
 * JOINT=VALUE (VALUE a finite number) with a URDF model (first positional).
 * 0, or 2 after printing usage. */
int cli_check(const cliArgs* c, const char* allowed, int minpos, int maxpos, const char* usage);
/* Help (reports/cli_help.c): the command's help with every option it
 * accepts (allowed: its cli_check list), the command list, the manual page
 * (roff), and the closest of a comma-separated list of names to a mistyped
 * word (NULL when none is close). cli_help returns 0, or 2 for an unknown
 * command. */
int cli_help(FILE* f, const char* cmd, const char* allowed);
void cli_help_overview(FILE* f);
void cli_man(FILE* f);
const char* cli_suggest(const char* word, const char* list);
const char* cli_command_names(void);
const char* cli_doc_options(const char* cmd);

/* Parse a comma-separated list of exactly n doubles. 0 or -1. */
int cli_doubles(const char* s, double* out, int n);
/* Parse a decimal integer option value with a default; -1 on junk (err printed). */
int cli_int(const cliArgs* c, const char* key, long def, long* out);
/* Parse a double option value with a default; -1 on junk (err printed). */
int cli_double(const cliArgs* c, const char* key, double def, double* out);

/* --friction[=LIST]: the joint-parameter kinds to identify as a bit mask
 * over IA FV FC FO (ident/base.h dyi_friction_kinds; plain --friction: all).
 * 0, or 2 after printing the usage error. */
int cli_kinds(const cliArgs* c, unsigned* keep);
/* The kinds of a mask as "ia,fv,fc,fo" (those set). */
void cli_kinds_text(unsigned keep, char* buf, int bufsz);

/* Print "dynid: MSG" on standard error; returns 1 (bad input). */
int cli_fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "dynid: MSG" and a usage hint; returns 2 (bad usage). */
int cli_usage(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* Load the model named by the first positional argument with the common
 * options (--lock JOINT=VALUE into the load options); print each line of
 * its notes (e.g. locked joints) as "dynid: warning: LINE" on standard
 * error unless --quiet. NULL after printing the error. */
dyModel* cli_model(const cliArgs* c);
/* --lock JOINT=VALUE: the value after the last '=' into *q (a finite
 * number [rad|m]); the name is v[0 .. *namelen-1], not empty. 0 or -1. */
int cli_lock_value(const char* v, size_t* namelen, double* q);

/* Provenance (reports/cli_prov.c). cli_fingerprint: "7 joints RRRRRRR
 * geometry 5d1c0f3a" (joint count, types, hash of the modified-DH
 * geometry). cli_provenance: the '#' lines every file written from now on
 * starts with (dynid version, command line, model and fingerprint, input
 * files with sizes and --rows); m may be NULL. cli_params_match: 0 when
 * the PARAMS file p (its header, ident/params.h) was identified on a model
 * with m's fingerprint (or records none, or --force, with a warning), else
 * 1 after printing. */
#include "ident/params.h"
void cli_fingerprint(const dyModel* m, char* buf, size_t sz);
void cli_provenance(const cliArgs* c, const dyModel* m);
int cli_params_match(const cliArgs* c, const dyModel* m, const dyiParams* p);

/* Progress on standard error, only when it is a terminal and at most every
 * half second: "what: done units (rate/s)". final = 1 ends the line. */
void cli_progress(const char* what, long long done, const char* units, int final);
/* The same with the fraction done, part of whole (whole <= 0: unknown): a
 * bar and the time left at the pace so far. */
void cli_progress_of(const char* what, long long done, const char* units, long long part, long long whole,
                     int final);

/* -------------------------------------------------------------- states */

/* A states file (README.md, Model tables and files): for each prefix in pre[npre]
 * (e.g. {"q","qd","qdd"} or {"q","qd","tau"}) the columns PREFIX1..PREFIXn,
 * matched by header name. Streaming: one row at a time. */
typedef struct cliStates_ cliStates;
cliStates* cli_states_open(const char* path, int n, const char* const* pre, int npre,
                          char* err, int errsz);
/* 1 with out[k][0..n-1] filled for each prefix k, 0 at end, -1 error. */
int cli_states_next(cliStates* s, double* const* out, char* err, int errsz);
/* the file's line of the last row read */
long cli_states_line(const cliStates* s);

/* --params P: the standard parameters (14n, with the joint parameters) of
 * PARAMS file P written into par: the ones it carries ("#! pi" lines), else
 * the sparsest realisation of its base parameters; 0, or 1 after printing
 * the error. Without --params, par = m->par. */
int cli_params(const cliArgs* c, const dyModel* m, double* par);
/* PARAMS file path for model m, as every command reads one: its header
 * first, refused when it was identified on another model (cli_params_match,
 * before its rows, which another model's names may not even parse), then
 * its rows. NULL after printing the error. (reports/cli_params.c) */
dyiParams* cli_params_read(const cliArgs* c, const dyModel* m, const char* path);
/* The condition number as the PARAMS header words it (identify writes it,
 * report quotes it): "C (regressor[ as weighted], SI units; S after column
 * scaling)", C the regressor's, S after column scaling. */
void cli_cond_text(char* buf, size_t sz, double cond, int weighted, double cond_scaled);
void cli_states_close(cliStates* s);

/* Log options shared by every command that reads a log (README.md,
 * Model tables and files): --no-header, --map NAME=COLUMN (repeatable, ranges
 * q1..q7=c2..c8), --gain K1,...,Kn, --q-offset O1,...,On, --rows A..B,
 * --cutoff HZ, --on-bad drop|stop; the model's transmission (its own or
 * --transmission's, set by cli_model) maps motor columns to the joints.
 * 0, or 2 after printing the usage error. (reports/cli_log.c) */
#include "ident/log.h"
#define CLI_LOG_OPTS "no-header,map,gain,transmission,q-offset,rows,cutoff,on-bad,time-scale,decimate,resample,qd-min," \
                     "filter-order,derive,drop-stale,no-parallel,strict"
int cli_logopt(const cliArgs* c, const dyModel* m, dyiLogOpt* opt);
/* The same for log k of nlog (identify's several logs: --rows may give one
 * range per log). */
int cli_logopt_k(const cliArgs* c, const dyModel* m, int k, int nlog, dyiLogOpt* opt);
/* The gains the logs of this run were scaled by (--gain, or the GAIN rows
 * of a PARAMS file), as GAIN rows (empty std: given, not estimated) to
 * append to the PARAMS file the run writes, so that the file carries the
 * gains its parameters are in; nothing when none was given. 0, or -1 on a
 * write error. */
int cli_write_run_gains(FILE* f);

/* Mistakes with a log (reports/cli_scan.c), checked in the pass that
 * reads it (ident/log.h dyiLogWatch): cli_watch_start before the log is
 * opened with opt (sets opt->watch; nothing under --quiet),
 * cli_watch_end after the command's first complete pass over it: one
 * warning line each on standard error for position columns that do not
 * match the model's joints, a sample rate outside 5 Hz..100 kHz,
 * positions far outside the joint limits or turning faster than once a
 * second (degrees), a torque RMS 10x away from the model's gravity torque
 * RMS (units, gains); with findings also the gate's data-quality findings
 * with their first lines. cli_watch_end returns the number of warnings;
 * cli_watch_free releases the watch after the reader it watched is closed
 * (the reader hands the findings over as it closes). A pass that ended
 * early (an error) warns of the header only. cli_fail_log:
 * print a log reader's error err (returns 1); a missing column adds the
 * columns the file has, its delimiter and, when they differ, the model's
 * joints against the log's position columns. */
typedef struct cliWatch_ cliWatch;
/* --strict: the warnings about the log (units, rates, the model, the data's
 * quality) are errors. cli_strict_fail prints them, then one line saying
 * nothing was written; returns 1 (the exit status). */
int cli_strict_fail(const char* cmd, int nwarn);
cliWatch* cli_watch_start(const cliArgs* c, const dyModel* m, dyiLogOpt* opt);
int cli_watch_end(const cliArgs* c, cliWatch* w, const char* path, int findings);
void cli_watch_free(cliWatch* w);
/* No comparison with the model's gravity torque for this log (a log with an
 * unknown load on the tip, which changes that torque by design). */
void cli_watch_no_gravity(cliWatch* w);
int cli_fail_log(const char* path, const dyiLogOpt* opt, int n, const char* err);
/* cli_watch_end's lines wait until this prints them (show = 1, the command
 * succeeded) or drops them (show = 0): a failing command prints one line. */
void cli_flush_warnings(int show);
/* The closing block: "dynid: N warnings question this result:" and one
 * short line each for the warnings cli_watch_end printed (those --strict
 * makes errors), so that they are not lost above a command's summary.
 * Only when some were printed already and are not the last lines anyway
 * (still pending: cli_flush_warnings prints them last); nothing when there
 * are none. main.c calls it after a successful command. */
void cli_question_block(void);
/* How well each base parameter is identified (reports/cli_poorly.c), one
 * rule for the terminal list of `dynid identify` and the report's: the
 * class of each value, its std and its scale ||tau|| / ||Y_k|| is
 * ident/estimate.h dyi_ident_class, the scales dyi_est_scales (from an
 * estimator) or ident/identify.h dyi_identify_scales (from logs).
 * cli_ident_lines: the list on f, names NULL for b1, b2, ...: the poorly
 * identified ones (or that none is), the count of tiny ones, the ones held
 * by a bound. cli_poorly_identified: the lines of estimate beta with its
 * std (NULL: the estimator's) on standard error. */
struct dyiEstim_;
struct dyiBase_;
void cli_ident_lines(FILE* f, int p, const char* const* names, const double* value, const double* std,
                     const double* scale);
void cli_poorly_identified(const struct dyiEstim_* e, const double* beta, const double* std);
/* One warning line listing the base parameters identified more than 5x (and
 * significantly) away from the nominal model's: wrong model, units or gains.
 * Returns how many. (reports/cli_scan.c) */
int cli_nominal_outliers(const dyModel* m, const struct dyiBase_* b, const struct dyiEstim_* e, const double* beta);

/* --fix NAME=VALUE and --drop NAME (repeatable; reports/cli_held.c): the
 * standard parameters to hold instead of estimate (ident/base.h
 * dyi_base_fix), indices into k and values into v (room for DY_NPL *
 * DY_MAXJ), their count in *nk. 0, or 2 after printing the usage error (an
 * unknown name lists the model's names one edit away). cli_held_apply: hold
 * them in b; 0, 2 (a parameter that cannot be held, and why) or 1 (the set
 * does not survive it). cli_drop_hint: for the estimator's "do not determine
 * the combination" error err, the options that would each hold one of
 * its single-parameter base parameters ("--drop FC1 or --drop FO1"; ""
 * when none): holding one removes that combination. */
int cli_held(const cliArgs* c, const dyModel* m, int* k, double* v, int* nk);
int cli_held_apply(const cliArgs* c, const dyModel* m, struct dyiBase_* b, const int* k, const double* v, int nk);
void cli_drop_hint(const dyModel* m, const struct dyiBase_* b, const char* err, char* hint, int sz);

/* the subcommands */
int cmd_model(cliArgs* c);
int cmd_id(cliArgs* c);
int cmd_inertia(cliArgs* c);
int cmd_fd(cliArgs* c);
int cmd_regressor(cliArgs* c);
int cmd_base(cliArgs* c);
int cmd_excite(cliArgs* c);
int cmd_simulate(cliArgs* c);
int cmd_identify(cliArgs* c);
/* identify --estimate-gains (reports/cmd_gains.c): cli_gains_wanted is 1
 * when any of its options (--estimate-gains, --payload-log,
 * --payload-mass) is given; cmd_identify then hands over. */
#define CLI_GAINS_OPTS "estimate-gains,payload-log,payload-mass,"
int cli_gains_wanted(const cliArgs* c);
int cmd_identify_gains(cliArgs* c);
int cmd_validate(cliArgs* c);
int cmd_report(cliArgs* c);
int cmd_payload(cliArgs* c);
int cmd_bench(cliArgs* c);

#endif

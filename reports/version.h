/* SPDX-License-Identifier: MIT */
/* dynid: the release number, printed by `dynid --version`, written into
 * every file's provenance lines and used by the Makefile for the shared
 * library's soname (libdynid.so.MAJOR) and dynid.pc. */
#ifndef DYNID_VERSION_H
#define DYNID_VERSION_H
#define DYNID_VERSION "1.0.0"
#endif

/*
 * banned.h: functions that are easy to misuse, made compile errors (as in git).
 * Use lp_buf_printf / snprintf / lp_str instead.
 */
#ifndef LP_BANNED_H
#define LP_BANNED_H

#define LP_BANNED(func) sorry_##func##_is_banned_in_loupe

#undef strcpy
#define strcpy(x, y) LP_BANNED(strcpy)
#undef strcat
#define strcat(x, y) LP_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) LP_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) LP_BANNED(strncat)
#undef sprintf
#define sprintf(...) LP_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) LP_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) LP_BANNED(strtok)
#undef gets
#define gets(x) LP_BANNED(gets)

#endif

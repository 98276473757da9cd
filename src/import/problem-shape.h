/* Private to the import wing: problem shapes ("mb16_ic64oc64_ih56..."), read by the oneDNN
 * importer and by the PyTorch importer's join of a oneDNN profile (problem-shape.c). */
#ifndef ROOFTIME_IMPORT_PROBLEM_SHAPE_H
#define ROOFTIME_IMPORT_PROBLEM_SHAPE_H

/* A problem descriptor such as "g2mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_iw112ow56kw3sw2dw0pw1" or
 * "l1t16mb16sic16slc32dhc16dic16": letters name the number that follows. */
typedef struct rt_shape {
    struct {
        char k[8];
        double v;
    } kv[48];
    int n;
} rt_shape;

/* Parse s into sh: 0, or -1 when s is not a shape (or has more than 48 entries). */
int rt_shape_parse(const char *s, rt_shape *sh);
/* 1 when the shape names k. */
int rt_shape_has(const rt_shape *sh, const char *k);
/* The number k names, or dflt. */
double rt_shape_get(const rt_shape *sh, const char *k, double dflt);

#endif

/* Units of Nsight Compute metrics (ncu-units.c). */
#ifndef ROOFTIME_IMPORT_NCU_UNI_H
#define ROOFTIME_IMPORT_NCU_UNI_H

/* Scale of an ncu unit to the base unit (byte, cycle, second, cycle/second, 1), or 0 if unknown. */
double rt_ncu_unit_scale(const char *unit);

#endif

/*
** rr_spec.c: the argument shapes of libtracerecord.so's records, one letter
** per argument as rr_lib_impl.h lists them, in Recorder's order
** (recorder.md §3); tracerecord's own fields (b, q) come last.
*/
#include "rr_lib_impl.h"

const char *const rr_spec_text[RR_S_COUNT] = {
    [RR_S_P] = "p",
    [RR_S_PD] = "pd",
    [RR_S_PDD] = "pdd",
    [RR_S_PXD] = "pxd",
    [RR_S_PXDD] = "pxdd",
    [RR_S_XDDP] = "xddp",
    [RR_S_PM] = "pm",
    [RR_S_DPX] = "dpx",
    [RR_S_PP] = "pp",
    [RR_S_MMAP] = "xdddpd",
    [RR_S_USER_P] = "npp",
    [RR_S_MPI_OPEN] = "ppdxp",
    [RR_S_MPI_SET_VIEW] = "pdpppx",
    [RR_S_MPI_RW_AT] = "pdxdpp",
    [RR_S_MPI_RW] = "pxdpp",
    [RR_S_MPI_IRW_AT] = "pdxdpx",
    [RR_S_MPI_IRW] = "pxdpx",
    [RR_S_MPI_BEGIN_AT] = "pdxdp",
    [RR_S_MPI_BEGIN] = "pxdp",
    /* HDF5 (lib/recorder-hdf5.c's lists): ids and flags in decimal, names as text */
    [RR_S_D] = "d",
    [RR_S_DD] = "dd",
    [RR_S_PDDD] = "pddd",
    [RR_S_H5DCREATE1] = "dpdddq",
    [RR_S_H5DCREATE2] = "dpdddddq",
    [RR_S_H5DOPEN1] = "dpq",
    [RR_S_H5DOPEN2] = "dpdq",
    [RR_S_H5DRW] = "dddddxb",
};

/*
** rec_h5.c: the HDF5 program tests/record/darshan.py traces (case h5):
** usage rec_h5 FILE.  Every call and the counters Darshan gives it are in
** darshan.py's h5 docstring.
*/
#include <hdf5.h>

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    int ints[100];
    for (int i = 0; i < 100; i++) ints[i] = i;
    hsize_t n100[1] = {100}, n10[1] = {10}, grid[2] = {4, 5}, six[1] = {6};
    hsize_t at20[1] = {20}, at11[2] = {1, 1}, two_by_three[2] = {2, 3};

    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(1, n100, NULL);
    hid_t d = H5Dcreate2(f, "ints", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    /* H5S_ALL: the whole dataspace, 100 points x 4 bytes */
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints);
    /* 10 points from 20: 40 bytes */
    hid_t mem10 = H5Screate_simple(1, n10, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, at20, NULL, n10, NULL);
    H5Dwrite(d, H5T_NATIVE_INT, mem10, space, H5P_DEFAULT, ints);

    /* int16 in the file, int in memory: the DATASET's type counts, 20 x 2 then 6 x 2 bytes */
    hid_t gspace = H5Screate_simple(2, grid, NULL);
    hid_t s = H5Dcreate2(f, "shorts", H5T_STD_I16LE, gspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(s, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints);
    hid_t mem6 = H5Screate_simple(1, six, NULL);
    H5Sselect_hyperslab(gspace, H5S_SELECT_SET, at11, NULL, two_by_three, NULL);
    H5Dwrite(s, H5T_NATIVE_INT, mem6, gspace, H5P_DEFAULT, ints);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    H5Dclose(s);
    H5Dclose(d);
    H5Fclose(f);

    /* What the reads return is checked: the data went through the file. */
    for (int i = 0; i < 100; i++) ints[i] = -1;
    f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "ints", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints);
    H5Dread(d, H5T_NATIVE_INT, mem10, space, H5P_DEFAULT, ints);
    /* A failed open: Darshan counts nothing of it */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t missing = H5Dopen2(f, "missing", H5P_DEFAULT);
    H5Dclose(d);
    H5Fclose(f);
    H5Sclose(mem6);
    H5Sclose(gspace);
    H5Sclose(mem10);
    H5Sclose(space);
    /* file[20..29] = 0..9 (the second write), read last into ints[0..9]; ints[25] from the first */
    return missing < 0 && ints[0] == 0 && ints[9] == 9 && ints[25] == 5 ? 0 : 1;
}

/* minifluxdiv_minshift.c -- MiniFluxDiv (R3 loop-chain form): 3-D flux divergence, 5 components,
 * nine nests in one chain.
 *
 * old, new: 5 components x (numCell+4)^3 cells (2 ghost cells per side);
 * cache_x/y/z: 5 components x faces of one direction (numCell+1 in that one).
 * The arrays are reached through macros (p_OLD, p_NEW, p_CACHEX, ...); the
 * pragmas name logical data sets OLD, NEW, CACHEX, CACHEY, CACHEZ with 3-D
 * (iz,iy,ix) tuples. Iterators iz, iy, ix are declared at function scope; the
 * component loop (c = 0..4) is inside each body.
 * Per direction d in x, y, z (velocity component u=2, v=3, w=4):
 *   FLUX1_d: g(c,P) = factor1*((old(c,P-2e) + 7.0*(old(c,P-e) + old(c,P))) + old(c,P+e))
 *            over the face domain (0:numCell in direction d, 0:numCell-1 otherwise)
 *   FLUX2_d: g(c,P) = g(c,P) * (factor2 * vel), vel = g(velocity component, P)
 *            read before the update (in place on the cache), same domain
 *   DIFF_d:  new(c,Q) += g(c,Q+e) - g(c,Q) over the cells 0:numCell-1 (cubed);
 *            all three DIFF nests accumulate into NEW in order x, y, z.
 * Schedule: fuse((0,0,0),(0,0,0),(0,0,1),(0,0,0),(0,0,0),(0,1,0),(0,0,0),(0,0,0),(1,0,0)):
 * the smallest legal shifts for plain fusion. DIFF_y at Q runs at
 * Q+(0,1,0), after DIFF_x at Q+(0,0,1) (lexicographically), and after g_y(Q+e_y)
 * (time Q+(0,1,0), earlier nest); DIFF_z likewise. But the NEW dependence
 * DIFF_x -> DIFF_y has distance (0,1,-1) and DIFF_y -> DIFF_z (1,-1,0): the fused
 * band is NOT permutable, so it must not be tiled as one band and its inner
 * loops are not parallel (the outer iz loop is not parallel either). The
 * test checks that plain fusion with these shifts, and the parallel loops
 * the compiler marks, keep the results; the one --tile set checks that
 * command-line tiling (best effort) tiles only what is legal here (the outer
 * loop alone) and that size-1 tiles do not confuse the parallel marks.
 * Input: old(c,z,y,x) = c + 0.5*(z+y+x) + ((7z + 11y + 13x + 3c) mod 17)/17
 * (non-linear, so the fluxes do not cancel); new starts as a copy of old; the
 * caches start as -1.
 * Output: the interior of new (printed in full up to 4096 values, else hashed),
 * then all of new (ghosts included) and the three caches, hashed per 64 values.
 *
 * flextile-test: args: 8 | 5 | 1 | 2 | 13 | 17
 * flextile-test: options: default | --no-openmp | --tile --tile-sizes 1,2 | --rectangle | --scalene --tile-sizes 1,2
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static inline double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

/* Prints an FNV-1a hash of the bits of each run of 64 elements of x[0..total-1]. */
static inline void dump_hashed(const char *name, const double *x, long total)
{
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t b = 0; b < sizeof bytes; b++) {
                h ^= bytes[b];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[flat %ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

/* Prints every element with its index (%.17g round-trips doubles exactly); for
 * arrays over 4096 elements, prints dump_hashed's run hashes instead. Either way, equal stdout means bit-identical arrays. */
static void dump(const char *name, const double *x, int nd, const int *dims)
{
    long total = 1;
    for (int d = 0; d < nd; d++)
        total *= dims[d] > 0 ? dims[d] : 0;
    if (total > 4096) {
        dump_hashed(name, x, total);
        return;
    }
    for (long k = 0; k < total; k++) {
        int idx[8];
        long r = k;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = (int)(r % dims[d]);
            r /= dims[d];
        }
        printf("%s", name);
        for (int d = 0; d < nd; d++)
            printf("[%d]", idx[d]);
        printf(" = %.17g\n", x[k]);
    }
}

static inline void dump1(const char *name, const double *x, int n)
{
    int dims[1] = {n};
    dump(name, x, 1, dims);
}

/* Reads argv[k] as an int >= min, or returns def when absent. */
static int arg_int(int argc, char **argv, int k, int def, int min)
{
    int v = argc > k ? atoi(argv[k]) : def;
    if (v < min) {
        fprintf(stderr, "argument %d must be >= %d\n", k, min);
        exit(1);
    }
    return v;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

#define NCOMP 5
#define GHOST 2
#define FULL (numCell + 2 * GHOST)
#define p_OLD(c, z, y, x) \
    old[(((long)(c) * FULL + ((z) + GHOST)) * FULL + ((y) + GHOST)) * FULL + ((x) + GHOST)]
#define p_NEW(c, z, y, x) \
    new_[(((long)(c) * FULL + ((z) + GHOST)) * FULL + ((y) + GHOST)) * FULL + ((x) + GHOST)]
#define p_CACHEX(c, z, y, x) \
    cache_x[(((long)(c) * numCell + (z)) * numCell + (y)) * (numCell + 1) + (x)]
#define p_CACHEY(c, z, y, x) \
    cache_y[(((long)(c) * numCell + (z)) * (numCell + 1) + (y)) * numCell + (x)]
#define p_CACHEZ(c, z, y, x) \
    cache_z[(((long)(c) * (numCell + 1) + (z)) * numCell + (y)) * numCell + (x)]

/* restrict: the arrays never overlap; flextile cannot check that at run time for
 * the chain's logical data sets (OLD, CACHEX, ...), and without the promise
 * it would leave the chain as written. */
static void mini_flux_div(int numCell, const double *restrict old, double *restrict new_,
                          double *restrict cache_x, double *restrict cache_y, double *restrict cache_z)
{
    int iz, iy, ix;
    const double factor1 = 1.0 / 12.0;
    const double factor2 = 2.0;

#pragma omplc loopchain schedule(fuse((0,0,0),(0,0,0),(0,0,1),(0,0,0),(0,0,0),(0,1,0),(0,0,0),(0,0,0),(1,0,0)))
    {
        /* ---- direction x ---- */
#pragma omplc for domain(0:numCell-1, 0:numCell-1, 0:numCell) with (iz, iy, ix) \
        read OLD {(iz,iy,ix-2),(iz,iy,ix-1),(iz,iy,ix),(iz,iy,ix+1)}, write CACHEX {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix <= numCell; ix++) {
                    for (int c = 0; c < NCOMP; c++) {
                        p_CACHEX(c, iz, iy, ix) =
                            factor1 * ((p_OLD(c, iz, iy, ix - 2)
                                        + 7.0 * (p_OLD(c, iz, iy, ix - 1) + p_OLD(c, iz, iy, ix)))
                                       + p_OLD(c, iz, iy, ix + 1));
                    }
                }
            }
        }

#pragma omplc for domain(0:numCell-1, 0:numCell-1, 0:numCell) with (iz, iy, ix) \
        read CACHEX {(iz,iy,ix)}, write CACHEX {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix <= numCell; ix++) {
                    const double vel = p_CACHEX(2, iz, iy, ix);
                    for (int c = 0; c < NCOMP; c++) {
                        p_CACHEX(c, iz, iy, ix) = p_CACHEX(c, iz, iy, ix) * (factor2 * vel);
                    }
                }
            }
        }

#pragma omplc for domain(0:numCell-1, 0:numCell-1, 0:numCell-1) with (iz, iy, ix) \
        read CACHEX {(iz,iy,ix),(iz,iy,ix+1)}, read NEW {(iz,iy,ix)}, write NEW {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    for (int c = 0; c < NCOMP; c++) {
                        p_NEW(c, iz, iy, ix) += p_CACHEX(c, iz, iy, ix + 1) - p_CACHEX(c, iz, iy, ix);
                    }
                }
            }
        }

        /* ---- direction y ---- */
#pragma omplc for domain(0:numCell-1, 0:numCell, 0:numCell-1) with (iz, iy, ix) \
        read OLD {(iz,iy-2,ix),(iz,iy-1,ix),(iz,iy,ix),(iz,iy+1,ix)}, write CACHEY {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy <= numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    for (int c = 0; c < NCOMP; c++) {
                        p_CACHEY(c, iz, iy, ix) =
                            factor1 * ((p_OLD(c, iz, iy - 2, ix)
                                        + 7.0 * (p_OLD(c, iz, iy - 1, ix) + p_OLD(c, iz, iy, ix)))
                                       + p_OLD(c, iz, iy + 1, ix));
                    }
                }
            }
        }

#pragma omplc for domain(0:numCell-1, 0:numCell, 0:numCell-1) with (iz, iy, ix) \
        read CACHEY {(iz,iy,ix)}, write CACHEY {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy <= numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    const double vel = p_CACHEY(3, iz, iy, ix);
                    for (int c = 0; c < NCOMP; c++) {
                        p_CACHEY(c, iz, iy, ix) = p_CACHEY(c, iz, iy, ix) * (factor2 * vel);
                    }
                }
            }
        }

#pragma omplc for domain(0:numCell-1, 0:numCell-1, 0:numCell-1) with (iz, iy, ix) \
        read CACHEY {(iz,iy,ix),(iz,iy+1,ix)}, read NEW {(iz,iy,ix)}, write NEW {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    for (int c = 0; c < NCOMP; c++) {
                        p_NEW(c, iz, iy, ix) += p_CACHEY(c, iz, iy + 1, ix) - p_CACHEY(c, iz, iy, ix);
                    }
                }
            }
        }

        /* ---- direction z ---- */
#pragma omplc for domain(0:numCell, 0:numCell-1, 0:numCell-1) with (iz, iy, ix) \
        read OLD {(iz-2,iy,ix),(iz-1,iy,ix),(iz,iy,ix),(iz+1,iy,ix)}, write CACHEZ {(iz,iy,ix)}
        for (iz = 0; iz <= numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    for (int c = 0; c < NCOMP; c++) {
                        p_CACHEZ(c, iz, iy, ix) =
                            factor1 * ((p_OLD(c, iz - 2, iy, ix)
                                        + 7.0 * (p_OLD(c, iz - 1, iy, ix) + p_OLD(c, iz, iy, ix)))
                                       + p_OLD(c, iz + 1, iy, ix));
                    }
                }
            }
        }

#pragma omplc for domain(0:numCell, 0:numCell-1, 0:numCell-1) with (iz, iy, ix) \
        read CACHEZ {(iz,iy,ix)}, write CACHEZ {(iz,iy,ix)}
        for (iz = 0; iz <= numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    const double vel = p_CACHEZ(4, iz, iy, ix);
                    for (int c = 0; c < NCOMP; c++) {
                        p_CACHEZ(c, iz, iy, ix) = p_CACHEZ(c, iz, iy, ix) * (factor2 * vel);
                    }
                }
            }
        }

#pragma omplc for domain(0:numCell-1, 0:numCell-1, 0:numCell-1) with (iz, iy, ix) \
        read CACHEZ {(iz,iy,ix),(iz+1,iy,ix)}, read NEW {(iz,iy,ix)}, write NEW {(iz,iy,ix)}
        for (iz = 0; iz < numCell; iz++) {
            for (iy = 0; iy < numCell; iy++) {
                for (ix = 0; ix < numCell; ix++) {
                    for (int c = 0; c < NCOMP; c++) {
                        p_NEW(c, iz, iy, ix) += p_CACHEZ(c, iz + 1, iy, ix) - p_CACHEZ(c, iz, iy, ix);
                    }
                }
            }
        }
    }
}

int main(int argc, char **argv)
{
    int numCell = arg_int(argc, argv, 1, 8, 1);
    long full = numCell + 2 * GHOST;
    long cells = NCOMP * full * full * full;
    long faces = (long)NCOMP * numCell * numCell * (numCell + 1);
    double *old = xmalloc(sizeof(double) * cells);
    double *new_ = xmalloc(sizeof(double) * cells);
    double *cache_x = xmalloc(sizeof(double) * faces);
    double *cache_y = xmalloc(sizeof(double) * faces);
    double *cache_z = xmalloc(sizeof(double) * faces);
    for (int c = 0; c < NCOMP; c++)
        for (int z = -GHOST; z < numCell + GHOST; z++)
            for (int y = -GHOST; y < numCell + GHOST; y++)
                for (int x = -GHOST; x < numCell + GHOST; x++) {
                    int r = ((7 * (z + GHOST) + 11 * (y + GHOST) + 13 * (x + GHOST) + 3 * c) % 17);
                    p_OLD(c, z, y, x) = c + 0.5 * (z + y + x) + r / 17.0;
                    p_NEW(c, z, y, x) = p_OLD(c, z, y, x);
                }
    for (long k = 0; k < faces; k++)
        cache_x[k] = cache_y[k] = cache_z[k] = -1.0;

    mini_flux_div(numCell, old, new_, cache_x, cache_y, cache_z);

    double *interior = xmalloc(sizeof(double) * NCOMP * numCell * numCell * numCell);
    long n = 0;
    for (int c = 0; c < NCOMP; c++)
        for (int z = 0; z < numCell; z++)
            for (int y = 0; y < numCell; y++)
                for (int x = 0; x < numCell; x++)
                    interior[n++] = p_NEW(c, z, y, x);
    int dims_interior[4] = {NCOMP, numCell, numCell, numCell};
    dump("new", interior, 4, dims_interior);
    dump_hashed("new_with_ghosts", new_, cells);
    dump_hashed("cache_x", cache_x, faces);
    dump_hashed("cache_y", cache_y, faces);
    dump_hashed("cache_z", cache_z, faces);
    free(interior);
    free(old);
    free(new_);
    free(cache_x);
    free(cache_y);
    free(cache_z);
    return 0;
}

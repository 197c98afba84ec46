/* A statement of a scop reads the variable of an earlier loop of the scop:
 * in the original it reads the loop's final value, but flextile's generated
 * loops count with their own counters and do not assign 'i'. Refused at the
 * use.
 * flextile-test: expect-exit: 1
 * flextile-test: expect-error: 15:12: variable of a loop
 */
#define DATA_TYPE double

void kernel(int n, DATA_TYPE *A)
{
    int i;
#pragma scop
    for (i = 0; i < n; i++) A[i] = A[i] + 1;
    A[0] = i;
#pragma endscop
}

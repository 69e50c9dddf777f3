/* bench_core.c: not written yet */
int main(void)
{
    return 0;
}

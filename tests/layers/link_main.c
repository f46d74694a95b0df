/* The program each layer's library is linked whole into (tests/layers/CMakeLists.txt). */
int main(void)
{
    return 0;
}

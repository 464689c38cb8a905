# embed.cmake - turn a file into a C source defining `const char <NAME>[]` (NUL-terminated) and
# `const size_t <NAME>_len`. Run as: cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -DHEADER=<h> -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUT}"
  "/* ${NAME}.c - generated from ${IN} by embed.cmake; do not edit. */\n"
  "#include \"${HEADER}\"\n\n"
  "const char ${NAME}[] = {\n    ${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${len};\n")

# hex_bytes.cmake - the bytes of a file as a C initializer list, for the embedding scripts
# (embed.cmake, web_embed.cmake): nq_hex_bytes(PATH BYTES LEN) sets BYTES to "0x..,0x..," with 16
# bytes a line and LEN to the file's size.
string(REPEAT "0x[0-9a-f][0-9a-f]," 16 nq_hex_sixteen) # CMake's regular expressions have no {n}
function(nq_hex_bytes path bytes_var len_var)
  file(READ "${path}" hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(${nq_hex_sixteen})" "\\1\n    " bytes "${bytes}")
  set(${bytes_var} "${bytes}" PARENT_SCOPE)
  set(${len_var} "${len}" PARENT_SCOPE)
endfunction()

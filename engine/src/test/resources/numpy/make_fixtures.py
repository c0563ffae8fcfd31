#!/usr/bin/env python3
"""Writes the .npy/.npz fixtures of NpyArray's tests with NumPy itself (run from anywhere; writes beside this script).

Every numeric fixture holds, at C-order position c, the value given by value(kind, c) below; the Java tests check
every element against the same formula (NpyFixtures.expected). Re-running writes the same values (zip members carry
the time of writing). Committed outputs written with NumPy 2.4.6; NumPy 1.24.2 (Debian's python3-numpy) writes
byte-identical .npy files and members, except object.npy's pickle payload, which no test reads.
Nothing here ever loads a pickle: the object-array fixture is only written.
"""
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (4, 3, 5)
TYPES = ['f2', 'f4', 'f8', 'i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8', 'b1']


def value(kind, c):
    """The formula the Java tests share: small values every dtype holds exactly, negatives where signed."""
    c = np.asarray(c, dtype=np.int64)
    base = (c * 7 + 3) % 251
    if kind == 'u':
        return base
    if kind == 'b':
        return c % 3 == 0
    if kind == 'f':
        return (base - 125) / 4.0
    return base - 125


def formula_array(code, shape):
    n = int(np.prod(shape))
    return value(np.dtype(code).kind, np.arange(n)).reshape(shape).astype(code)


def path(name):
    return os.path.join(HERE, name)


def save(name, arr, **kw):
    np.save(path(name), arr, **kw)


def write_raw(name, data):
    with open(path(name), 'wb') as f:
        f.write(data)


def npy_bytes(header_text, payload=b'', version=(1, 0)):
    """Builds an .npy file by hand, for headers NumPy would never write."""
    h = header_text.encode('latin1')
    h += b' ' * ((64 - (len(h) + 11) % 64) % 64) + b'\n'
    lead = b'\x93NUMPY' + bytes(version)
    lead += struct.pack('<H', len(h)) if version[0] == 1 else struct.pack('<I', len(h))
    return lead + h + payload


def dtype_fixtures():
    for code in TYPES:
        orders = [('na', '|')] if code in ('i1', 'u1', 'b1') else [('le', '<'), ('be', '>')]
        for tag, prefix in orders:
            arr = formula_array(prefix + code if prefix != '|' else code, SHAPE)
            save('%s_%s_c.npy' % (code, tag), np.ascontiguousarray(arr))
            save('%s_%s_f.npy' % (code, tag), np.asfortranarray(arr))


def shape_fixtures():
    save('scalar_f8.npy', np.float64(3.5))                         # 0-d
    save('vector_i4.npy', formula_array('<i4', (10,)))              # 1-d: ten scalar samples
    save('empty_f4.npy', np.zeros((0, 3), dtype='<f4'))
    save('rank4_f4_f.npy', np.asfortranarray(formula_array('<f4', (3, 2, 4, 5))))
    for version in [(2, 0), (3, 0)]:
        with open(path('v%d_f4.npy' % version[0]), 'wb') as f:
            np.lib.format.write_array(f, formula_array('<f4', SHAPE), version=version)
    extremes = np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max], dtype='<i8')
    save('extremes_i8.npy', extremes)
    save('extremes_u4.npy', np.array([0, 1, 2**32 - 1], dtype='>u4'))
    save('too_large_u8.npy', np.array([[1, 2], [3, 2**63 + 5]], dtype='<u8'))


def nonfinite_fixtures():
    for code in ['f2', 'f4', 'f8']:
        arr = np.zeros((20, 4, 5), dtype='<' + code)
        arr[17, 3, 4] = np.nan
        arr[18, 0, 1] = np.inf
        arr[19, 0, 0] = -np.inf     # first in file order when Fortran; sample 17 is still first in C order
        save('nonfinite_%s_c.npy' % code, arr)
        save('nonfinite_%s_f.npy' % code, np.asfortranarray(arr.astype('>' + code)))
    save('finite_f4.npy', formula_array('<f4', SHAPE))


def archive_fixtures():
    x = formula_array('<f4', (6, 2, 3))
    y = formula_array('<i8', (6,))
    np.savez(path('arrays.npz'), x=x, y=y, xf=np.asfortranarray(x))
    np.savez_compressed(path('arrays_compressed.npz'), x=x, y=y, xf=np.asfortranarray(x))
    honest = npy_bytes(str({'descr': '<f4', 'fortran_order': False, 'shape': (25 * 2**20,)}), b'\0' * (100 * 2**20))
    # 100 MiB of honest zeros deflates to ~100 kB: within the ratio deflate allows; the caller's cap must stop it
    with zipfile.ZipFile(path('bomb_large.npz'), 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr('x.npy', honest)
    small = npy_bytes(str({'descr': '<f4', 'fortran_order': False, 'shape': (256,)}), b'\0' * 1024)
    with zipfile.ZipFile(path('bomb_declared.npz'), 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('x.npy', small)
    patch_sizes(path('bomb_declared.npz'), uncompressed=0xFFFFFFF0)    # absurd versus its compressed size
    big = npy_bytes(str({'descr': '<f4', 'fortran_order': False, 'shape': (2**20,)}), b'\0' * (4 * 2**20))
    with zipfile.ZipFile(path('bomb_understated.npz'), 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('x.npy', big)
    patch_sizes(path('bomb_understated.npz'), uncompressed=20000)      # says 20 kB, inflates to 4 MiB
    with zipfile.ZipFile(path('bad_offset.npz'), 'w', zipfile.ZIP_STORED) as z:
        z.writestr('x.npy', small)
    patch_central(path('bad_offset.npz'), 42, struct.pack('<I', 10**6))  # local header offset past the end
    with zipfile.ZipFile(path('truncated_member.npz'), 'w', zipfile.ZIP_STORED) as z:
        z.writestr('x.npy', small[:-10])                                # the .npy inside is truncated


def patch_central(name, field, data):
    raw = bytearray(open(name, 'rb').read())
    at = raw.rindex(b'PK\x01\x02')
    raw[at + field:at + field + len(data)] = data
    open(name, 'wb').write(bytes(raw))


def patch_sizes(name, uncompressed):
    patch_central(name, 24, struct.pack('<I', uncompressed))
    raw = bytearray(open(name, 'rb').read())
    raw[22:26] = struct.pack('<I', uncompressed)     # the local header says the same, as a real forger would
    open(name, 'wb').write(bytes(raw))


def bad_fixtures():
    good = open(path('f4_le_c.npy'), 'rb').read()
    write_raw('truncated.npy', good[:-7])
    write_raw('truncated_header.npy', good[:40])
    write_raw('claims_more.npy', npy_bytes(str({'descr': '<f4', 'fortran_order': False, 'shape': (1000, 3)}),
                                           b'\0' * 240))
    write_raw('trailing.npy', good + b'\0\0\0\0')
    write_raw('bad_magic.npy', b'a,b,c\n1,2,3\n4,5,6\n')
    write_raw('version_9.npy', b'\x93NUMPY\x09\x00' + good[8:])
    write_raw('garbage_dict.npy', npy_bytes("{'descr': '<f4', 'fortran_order': __import__('os').system('true'),"
                                            " 'shape': (2,), }", b'\0' * 8))
    write_raw('shape_overflow.npy', npy_bytes("{'descr': '<f4', 'fortran_order': False,"
                                              " 'shape': (4611686018427387904, 4), }"))
    write_raw('shape_negative.npy', npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3), }"))
    write_raw('missing_key.npy', npy_bytes("{'descr': '<f4', 'shape': (2,), }", b'\0' * 8))
    save('structured.npy', np.zeros(3, dtype=[('a', '<f4'), ('b', '<i4')]))
    save('strings.npy', np.array(['ab', 'c']))
    save('complex.npy', np.zeros(2, dtype='<c8'))
    # an object array's payload is a pickle: written here, never loaded by anything
    save('object.npy', np.array([1, 'two', None], dtype=object), allow_pickle=True)
    obj = open(path('object.npy'), 'rb').read()
    header_end = 10 + struct.unpack('<H', obj[8:10])[0]
    write_raw('object_header_only.npy', obj[:header_end])


if __name__ == '__main__':
    dtype_fixtures()
    shape_fixtures()
    nonfinite_fixtures()
    archive_fixtures()
    bad_fixtures()

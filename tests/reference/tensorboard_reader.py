#!/usr/bin/env python3
"""Independent reader of TensorBoard event files, to check Strata's TensorBoardWriter.

Written from the format descriptions, sharing no code with the C++ writer and using only the
standard library: CRC-32C is computed bit by bit (not from a table), every record's two masked
CRCs are verified, and the protobuf messages are decoded generically by wire type before the
Event / Summary / Value fields are picked out.

usage:
  tensorboard_reader.py EVENT_FILE
prints one JSON object per line: {"file_version": ...} for a version event and
{"step": s, "wall_time": t, "tag": name, "value": v} for each scalar value. Non-finite values are
printed as the strings "nan", "inf", "-inf". Exits non-zero with a message on any corruption.
"""
import json
import math
import struct
import sys

CASTAGNOLI_REFLECTED = 0x82F63B78


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ CASTAGNOLI_REFLECTED if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(blob):
    """Yields the data of each TFRecord: u64 length, masked CRC, data, masked CRC."""
    at = 0
    while at < len(blob):
        if len(blob) - at < 12:
            raise ValueError(f"truncated record header at byte {at}")
        header = blob[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", blob[at + 8:at + 12])
        if length_crc != masked_crc32c(header):
            raise ValueError(f"bad length CRC at byte {at}")
        start = at + 12
        if len(blob) < start + length + 4:
            raise ValueError(f"truncated record data at byte {at}")
        data = blob[start:start + length]
        (data_crc,) = struct.unpack("<I", blob[start + length:start + length + 4])
        if data_crc != masked_crc32c(data):
            raise ValueError(f"bad data CRC at byte {at}")
        yield data
        at = start + length + 4


def read_varint(data, at):
    value, shift = 0, 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def fields(message):
    """Decodes a protobuf message into {field number: [(wire type, raw value), ...]}."""
    out = {}
    at = 0
    while at < len(message):
        key, at = read_varint(message, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = read_varint(message, at)
        elif wire == 1:
            value, at = message[at:at + 8], at + 8
        elif wire == 2:
            length, at = read_varint(message, at)
            value, at = message[at:at + length], at + length
        elif wire == 5:
            value, at = message[at:at + 4], at + 4
        else:
            raise ValueError(f"unsupported wire type {wire} for field {number}")
        if at > len(message):
            raise ValueError(f"field {number} runs past the end of its message")
        out.setdefault(number, []).append((wire, value))
    return out


def single(decoded, number, wire, default=None):
    entries = decoded.get(number, [])
    if not entries:
        return default
    if len(entries) != 1 or entries[0][0] != wire:
        raise ValueError(f"field {number}: expected one value of wire type {wire}")
    return entries[0][1]


def as_json_number(value):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def main():
    with open(sys.argv[1], "rb") as f:
        blob = f.read()
    for data in records(blob):
        event = fields(data)
        wall_time = struct.unpack("<d", single(event, 1, 1, bytes(8)))[0]
        step = single(event, 2, 0, 0)
        if step >= 1 << 63:  # int64 is sent as two's complement
            step -= 1 << 64
        version = single(event, 3, 2)
        if version is not None:
            print(json.dumps({"file_version": version.decode("utf-8")}))
        summary = single(event, 5, 2)
        if summary is None:
            continue
        for wire, value_message in fields(summary).get(1, []):
            if wire != 2:
                raise ValueError("Summary.value is not a message")
            value = fields(value_message)
            tag = single(value, 1, 2).decode("utf-8")
            simple = struct.unpack("<f", single(value, 2, 5))[0]
            print(json.dumps({"step": step, "wall_time": as_json_number(wall_time), "tag": tag,
                              "value": as_json_number(simple)}, allow_nan=False))


if __name__ == "__main__":
    try:
        main()
    except (ValueError, OSError, struct.error) as error:
        print(f"tensorboard_reader.py: {error}", file=sys.stderr)
        sys.exit(1)

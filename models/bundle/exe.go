package bundle

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"io"
)

// imageEnd returns where the executable image in r ends, from its ELF,
// Mach-O or PE headers. Bytes past it were appended. ok is false when the
// format is not recognised.
func imageEnd(r io.ReaderAt) (end int64, ok bool) {
	if f, err := elf.NewFile(r); err == nil {
		return elfEnd(r, f)
	}
	if f, err := macho.NewFile(r); err == nil {
		for _, l := range f.Loads {
			if s, ok := l.(*macho.Segment); ok {
				end = max(end, int64(s.Offset+s.Filesz))
			}
		}
		return end, end > 0
	}
	if f, err := pe.NewFile(r); err == nil {
		for _, s := range f.Sections {
			end = max(end, int64(s.Offset)+int64(s.Size))
		}
		// The certificate table (Authenticode) is addressed by file offset
		// and usually sits at the end.
		var dirs []pe.DataDirectory
		switch h := f.OptionalHeader.(type) {
		case *pe.OptionalHeader32:
			dirs = h.DataDirectory[:]
		case *pe.OptionalHeader64:
			dirs = h.DataDirectory[:]
		}
		if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_SECURITY {
			d := dirs[pe.IMAGE_DIRECTORY_ENTRY_SECURITY]
			end = max(end, int64(d.VirtualAddress)+int64(d.Size))
		}
		return end, end > 0
	}
	return 0, false
}

// elfEnd is the end of the last segment, section or the section header
// table, whichever comes last.
func elfEnd(r io.ReaderAt, f *elf.File) (int64, bool) {
	var end int64
	for _, p := range f.Progs {
		end = max(end, int64(p.Off+p.Filesz))
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS {
			end = max(end, int64(s.Offset+s.FileSize))
		}
	}
	// debug/elf does not expose e_shoff; read it from the header.
	var hdr [64]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return 0, false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if f.Data == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	var shoff, shentsize, shnum uint64
	if f.Class == elf.ELFCLASS64 {
		shoff, shentsize, shnum = bo.Uint64(hdr[0x28:]), uint64(bo.Uint16(hdr[0x3a:])), uint64(bo.Uint16(hdr[0x3c:]))
	} else {
		shoff, shentsize, shnum = uint64(bo.Uint32(hdr[0x20:])), uint64(bo.Uint16(hdr[0x2e:])), uint64(bo.Uint16(hdr[0x30:]))
	}
	end = max(end, int64(shoff+shentsize*shnum))
	return end, end > 0
}

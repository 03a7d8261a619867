// The table controller's board on an emulated RP2040 (npm rp2040js 1.4.1): the real MicroPython
// UF2 boots from flash with a littlefs image holding firmware/, and this script plays the board's
// wiring. Driven by hil/rp2040_board.py over stdin/stdout, one JSON object per line:
//   in:  {"cdc": "<hex>"}            bytes from the host into the USB CDC port
//        {"pin": n, "level": 0|1}   drive an input pin (the level the wire has)
//        {"pulse": n, "level": 0|1, "ms": m}  drive a pin for m ms of emulated time, then back
//                                   (n = -1: no pin, only the "pulsed" report after m ms)
//        {"reset": "run"|"power"}   the RUN pin pulled low / a power cycle (flash is kept)
//        {"reset": "watchdog"|"force"}  the watchdog's timer runs out / the firmware's reset
//        {"ack": false}             the TM1637 modules stop acknowledging (a display unplugged)
//        {"flash": path}            a new littlefs image at 0xA0000, then a power cycle
//        {"stall": true|false}      the host holds the CDC port open but stops reading it (the
//                                   board's IN transfers wait, its FIFO fills) / reads again
//   out: {"cdc": "<hex>"}            bytes the board wrote to USB CDC
//        {"pin": n, "level": 0|1, "t": ms}       a watched output changed
//        {"tm1637": dio, "bytes": [...], "t": ms} one start..stop transaction on a TM1637 bus
//        {"ws2812": pin, "bytes": [...], "t": ms} one WS2812 frame (GRB bytes)
//        {"boot": n, "cause": "power"|"run"|"watchdog", "t": 0}  the chip (re)started
//        {"usb": "connected"}  USB enumerated
//        {"clock": ms, "wall": ms}  every second: emulated vs wall time since boot
// A watchdog or software reset keeps the watchdog's scratch registers (as the chip does: the
// firmware counts its unsent events there); a RUN-pin reset or a power cycle clears them.
// Emulated time never runs ahead of wall time (the firmware's 1 ms sleeps would otherwise skip
// ahead): a chunk that got ahead waits for the wall clock.
// Usage: node rp2040_board.mjs MODULE_DIR CONFIG_JSON
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const [moduleDir, configPath] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configPath, "utf8"));
const require = createRequire(join(resolve(moduleDir), "package.json"));
const rp = await import(require.resolve("rp2040js"));
const { bootromB1 } = await import(resolve(config.bootrom));

const FS_OFFSET = 0xa0000; // MicroPython rp2 RPI_PICO: littlefs2 at 640 KiB into flash
const CHIP_RESET_HAD_POR = 1 << 8;
const CHIP_RESET_HAD_RUN = 1 << 16;
const WATCHDOG_REASON_TIMER = 1;
const WATCHDOG_REASON_FORCE = 2;

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function hex(bytes) {
  return Buffer.from(bytes).toString("hex");
}

function uf2Blocks(data) {
  const blocks = [];
  for (let at = 0; at + 512 <= data.length; at += 512) {
    const view = new DataView(data.buffer, data.byteOffset + at, 512);
    if (view.getUint32(0, true) !== 0x0a324655 || view.getUint32(4, true) !== 0x9e5d5157) {
      throw new Error("not a UF2 block at " + at);
    }
    const address = view.getUint32(12, true);
    const size = view.getUint32(16, true);
    blocks.push([address - 0x10000000, data.subarray(at + 32, at + 32 + size)]);
  }
  return blocks;
}

// The flash survives resets: kept here, copied into each new chip.
const flash = new Uint8Array(2 * 1024 * 1024).fill(0xff);
for (const [offset, bytes] of uf2Blocks(readFileSync(config.uf2))) flash.set(bytes, offset);
flash.set(readFileSync(config.image), FS_OFFSET);

const levels = new Map(Object.entries(config.inputs).map(([k, v]) => [Number(k), v]));
let displaysAck = true;
let boots = 0;
let sim = null;
let cdc = null;
let wallStart = 0;
let cdcReady = false;
let stalled = false;
let heldIn = []; // IN buffer-control writes held while the host does not read: [offset, value]
const pendingIn = [];
const USB_BUF_CTRL_AVAILABLE = 1 << 10;
const EP0_IN_BUFFER_CONTROL = 0x80;

class ChipReset extends rp.BasePeripheral {
  // VREG_AND_CHIP_RESET: CHIP_RESET (offset 8) says whether the last reset was a power-on or RUN
  constructor(chip, value) {
    super(chip, "VREG_AND_CHIP_RESET_BASE");
    this.value = value;
  }
  readUint32(offset) {
    return offset === 8 ? this.value : 0;
  }
  writeUint32() {}
}

class RingOscillator extends rp.BasePeripheral {
  // ROSC: the firmware's os.urandom (a per-boot boot id, §7.4) reads RANDOMBIT (offset 0x1c);
  // unimplemented it reads all ones and every boot would have the same id
  readUint32(offset) {
    return offset === 0x1c ? (Math.random() < 0.5 ? 1 : 0) : 0xffffffff;
  }
  writeUint32() {}
}

function nowMs() {
  return Math.round(sim.clock.nanos / 1e6 * 1000) / 1000;
}

function watchTm1637(chip, clkPin, dios) {
  const clk = chip.gpio[clkPin];
  const level = (pin) => pin.value === rp.GPIOPinState.Low ? 0 : 1; // released: pulled up
  const buses = dios.map((n) => ({ n, pin: chip.gpio[n], dio: 1, bits: 0, count: 0, bytes: null }));
  let clkLevel = level(clk);
  for (const bus of buses) {
    bus.dio = level(bus.pin);
    bus.pin.addListener(() => {
      const now = level(bus.pin);
      if (now === bus.dio) return;
      bus.dio = now;
      if (clkLevel !== 1) return;
      if (now === 0) {
        bus.bytes = []; bus.bits = 0; bus.count = 0; // start
      } else if (bus.bytes !== null) {
        send({ tm1637: bus.n, bytes: bus.bytes, t: nowMs() }); // stop
        bus.bytes = null;
      }
    });
  }
  clk.addListener(() => {
    const now = level(clk);
    if (now === clkLevel) return;
    clkLevel = now;
    for (const bus of buses) {
      if (bus.pin.outputEnable || bus.bytes === null) {
        // the chip answers the ninth clock by pulling DIO low (when it is there)
      }
      if (now !== 1 || bus.bytes === null) continue;
      if (bus.count === 8) {
        bus.bytes.push(bus.bits); bus.bits = 0; bus.count = 0; // ninth clock: the ACK
        continue;
      }
      bus.bits |= bus.dio << bus.count;
      bus.count += 1;
    }
  });
  return buses;
}

function watchWs2812(chip, pinNo) {
  // machine.bitstream timing: a high pulse longer than ~0.6 us is a 1; a low gap over 50 us ends
  // the frame (sent when the next frame starts or at the next clock report)
  const pin = chip.gpio[pinNo];
  let high = pin.outputValue, rose = 0, fell = 0, bits = [], bytes = [];
  const flush = () => {
    if (bytes.length) send({ ws2812: pinNo, bytes, t: nowMs() });
    bytes = []; bits = [];
  };
  pin.addListener(() => {
    const value = pin.outputValue;
    if (value === high) return;
    high = value;
    const t = chip.clock.nanos;
    if (value) {
      if (t - fell > 50000) flush();
      rose = t;
    } else {
      fell = t;
      bits.push(t - rose > 600 ? 1 : 0);
      if (bits.length === 8) {
        bytes.push(bits.reduce((acc, b) => (acc << 1) | b, 0)); bits = [];
      }
    }
  });
  return flush;
}

let flushLeds = () => {};

function holdInTransfers(chip) {
  // the device hands an IN buffer to the controller by setting AVAILABLE in its buffer control;
  // while the host does not read, the controller does not take it (the device sees NAKs)
  const ctrl = chip.usbCtrl;
  const original = ctrl.DPRAMUpdated.bind(ctrl);
  ctrl.DPRAMUpdated = (offset, value) => {
    const ep = (offset - EP0_IN_BUFFER_CONTROL) >> 3;
    if (stalled && cdc && cdc.inEndpoint > 0 && ep === cdc.inEndpoint && !(offset & 4)
        && (value & USB_BUF_CTRL_AVAILABLE)) {
      heldIn.push([offset, value]);
      return;
    }
    original(offset, value);
  };
  return () => {
    const held = heldIn;
    heldIn = [];
    for (const [offset, value] of held) original(offset, value);
  };
}

let releaseIn = () => {};

function boot(cause, scratch = null) {
  if (sim) sim.stop();
  boots += 1;
  sim = new rp.Simulator();
  const chip = sim.rp2040;
  chip.logger = new rp.ConsoleLogger(rp.LogLevel.Error);
  chip.loadBootrom(bootromB1);
  chip.flash.set(flash);
  const chipReset = cause === "power" ? CHIP_RESET_HAD_POR : cause === "run" ? CHIP_RESET_HAD_RUN : 0;
  chip.peripherals[0x40064] = new ChipReset(chip, chipReset);
  chip.peripherals[0x40060] = new RingOscillator(chip, "ROSC_BASE");
  const watchdog = chip.peripherals[0x40058];
  if (cause === "watchdog") watchdog.reason = WATCHDOG_REASON_TIMER;
  if (cause === "force") watchdog.reason = WATCHDOG_REASON_FORCE;
  if (scratch) watchdog.scratchData.set(scratch);
  watchdog.onWatchdogTrigger = () => {
    // keep what the firmware wrote to flash and the scratch registers, then start a new chip
    // (setTimeout: not from inside the instruction that triggered it)
    flash.set(chip.flash.subarray(0, flash.length));
    const reason = watchdog.reason === WATCHDOG_REASON_FORCE ? "force" : "watchdog";
    const kept = Uint32Array.from(watchdog.scratchData);
    sim.stop();
    setTimeout(() => boot(reason, kept), 0);
  };
  for (const [pin, level] of levels) chip.gpio[pin].setInputValue(level === 1);
  for (const pin of config.watch) {
    const gpio = chip.gpio[pin];
    let last = gpio.outputValue && gpio.outputEnable ? 1 : 0;
    gpio.addListener(() => {
      const value = gpio.outputEnable && gpio.outputValue ? 1 : 0;
      if (value !== last) { last = value; send({ pin, level: value, t: nowMs() }); }
    });
  }
  if (config.tm1637) {
    watchTm1637(chip, config.tm1637.clk, config.tm1637.dios);
    for (const n of config.tm1637.dios) chip.gpio[n].setInputValue(!displaysAck);
  }
  if (config.ws2812 !== null && config.ws2812 !== undefined) flushLeds = watchWs2812(chip, config.ws2812);
  cdcReady = false;
  heldIn = [];
  releaseIn = holdInTransfers(chip);
  cdc = new rp.USBCDC(chip.usbCtrl);
  cdc.onDeviceConnected = () => {
    cdcReady = true;
    send({ usb: "connected", t: nowMs() });
    drain();
  };
  cdc.onSerialData = (bytes) => send({ cdc: hex(bytes) });
  chip.core.PC = 0x10000000;
  wallStart = performance.now();
  send({ boot: boots, cause, t: 0 });
  run(sim);
}

let lastReport = 0;
const pulses = []; // [pin, level after, emulated nanos when]

function endPulses(chip, nanos) {
  for (let i = pulses.length - 1; i >= 0; i--) {
    const [pin, level, when] = pulses[i];
    if (nanos >= when) {
      if (pin >= 0) {
        levels.set(pin, level);
        chip.gpio[pin].setInputValue(level === 1);
      }
      pulses.splice(i, 1);
      send({ pulsed: pin, t: nanos / 1e6 });
    }
  }
}

function run(current) {
  // Simulator.execute(), paced: emulated time may lag the wall clock but never lead it
  if (current !== sim) return;
  const { rp2040: chip, clock } = current;
  const cycleNanos = 1e9 / 125000000;
  const wallNanos = (performance.now() - wallStart) * 1e6;
  for (let i = 0; i < 200000 && clock.nanos < wallNanos; i++) {
    if (chip.core.waiting) {
      const step = Math.min(clock.nanosToNextAlarm, wallNanos - clock.nanos + 1000);
      clock.tick(step);
      i += step / cycleNanos;
    } else {
      clock.tick(chip.core.executeInstruction() * cycleNanos);
    }
  }
  if (pulses.length) endPulses(chip, clock.nanos);
  if (clock.nanos - lastReport >= 1e9 || clock.nanos < lastReport) {
    lastReport = clock.nanos;
    flushLeds();
    send({ clock: Math.round(clock.nanos / 1e6), wall: Math.round(performance.now() - wallStart) });
  }
  const ahead = (clock.nanos - (performance.now() - wallStart) * 1e6) / 1e6;
  current.executeTimer = setTimeout(() => run(current), ahead > 1 ? Math.floor(ahead) : 0);
}

function feed(bytes) {
  // the CDC FIFO holds 512 bytes: what does not fit waits for the next chunk
  for (const b of bytes) {
    if (cdcReady && cdc.txFIFO.itemCount < 500 && pendingIn.length === 0) cdc.sendSerialByte(b);
    else pendingIn.push(b);
  }
}

function drain() {
  if (!cdcReady) return;
  while (pendingIn.length && cdc.txFIFO.itemCount < 500) cdc.sendSerialByte(pendingIn.shift());
}

setInterval(drain, 2);

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const cmd = JSON.parse(line);
  if (cmd.cdc !== undefined) feed(Buffer.from(cmd.cdc, "hex"));
  else if (cmd.pin !== undefined) {
    levels.set(cmd.pin, cmd.level);
    sim.rp2040.gpio[cmd.pin].setInputValue(cmd.level === 1);
  } else if (cmd.pulse === -1) {
    pulses.push([-1, 1, sim.clock.nanos + cmd.ms * 1e6]); // no pin: "pulsed" after ms
  } else if (cmd.pulse !== undefined) {
    const back = levels.get(cmd.pulse) ?? 1;
    levels.set(cmd.pulse, cmd.level);
    sim.rp2040.gpio[cmd.pulse].setInputValue(cmd.level === 1);
    pulses.push([cmd.pulse, back, sim.clock.nanos + cmd.ms * 1e6]);
  } else if (cmd.reset === "watchdog" || cmd.reset === "force") {
    // the watchdog's timer runs out (the firmware stopped feeding it) / the firmware's own
    // machine.reset(): the chip's watchdog reset path, scratch registers kept
    pendingIn.length = 0;
    const watchdog = sim.rp2040.peripherals[0x40058];
    watchdog.reason = cmd.reset === "force" ? WATCHDOG_REASON_FORCE : WATCHDOG_REASON_TIMER;
    watchdog.onWatchdogTrigger();
  } else if (cmd.reset !== undefined) {
    flash.set(sim.rp2040.flash.subarray(0, flash.length));
    pendingIn.length = 0;
    boot(cmd.reset);
  } else if (cmd.flash !== undefined) {
    flash.set(readFileSync(cmd.flash), FS_OFFSET);
    pendingIn.length = 0;
    boot("power");
  } else if (cmd.stall !== undefined) {
    stalled = cmd.stall;
    if (!stalled) releaseIn();
  } else if (cmd.ack !== undefined) {
    displaysAck = cmd.ack;
    for (const n of config.tm1637.dios) sim.rp2040.gpio[n].setInputValue(!displaysAck);
  }
}).on("close", () => process.exit(0));

boot("power");

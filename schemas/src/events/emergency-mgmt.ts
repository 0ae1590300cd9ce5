import { opt, req, t, type EventDef } from '../dsl/types';
import { address, ambulanceItem, denialDetail, emergencyPatient, incidentDetails } from './objects';

/** Emergency management block events (spec 6, Emergency management). */
const incidentEvent: EventDef = {
  event: 'incident',
  block: 'emergency_mgmt',
  name: 'IncidentProps',
  fields: {
    action: req(t.enum('incident_action', ['view', 'add', 'update', 'remove', 'other'])),
    details: req(t.object(incidentDetails)),
    patient_list: opt(t.array(t.object(emergencyPatient))),
    address: opt(t.object(address)),
    facility_id: opt(t.string),
    ambulance_list: opt(t.array(t.object(ambulanceItem))),
    schedule_time: opt(t.epochMs),
    status: opt(t.string, { doc: 'free string (spec 3)' }),
    resolution: opt(t.string),
    summary: opt(t.string),
    remarks: opt(t.string),
  },
};

const ambulanceEvent: EventDef = {
  event: 'ambulance',
  block: 'emergency_mgmt',
  name: 'AmbulanceProps',
  fields: {
    incident_id: opt(t.string),
    contact_id: opt(t.string),
    action: req(t.enum('ambulance_action', ['view', 'dispatch', 'denial', 'other'])),
    ambulance: req(t.object(ambulanceItem)),
    pickup_address: opt(t.object(address)),
    destination_address: opt(t.object(address)),
    denial_details: opt(t.object(denialDetail)),
  },
};

export const emergencyMgmtEvents: EventDef[] = [incidentEvent, ambulanceEvent];
